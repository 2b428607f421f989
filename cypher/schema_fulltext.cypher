// schema_fulltext: full-text index on cue text.
// params:
// returns:
CREATE FULLTEXT INDEX cue_fulltext IF NOT EXISTS FOR (c:Cue) ON EACH [c.text];
