// schema_fulltext: text index on cues (Memgraph; text search is stable since 3.6, no flag).
// params:
// returns:
CREATE TEXT INDEX cue_fulltext ON :Cue;
