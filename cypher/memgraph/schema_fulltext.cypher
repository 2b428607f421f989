// schema_fulltext: text index on cues (Memgraph; needs --experimental-enabled=text-search).
// params:
// returns:
CREATE TEXT INDEX cue_fulltext ON :Cue;
