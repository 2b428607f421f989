// schema_fulltext: full-text index on cue text (FalkorDB procedure).
// params:
// returns:
CALL db.idx.fulltext.createNodeIndex('Cue', 'text');
