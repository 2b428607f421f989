// schema_vector_drop: remove FalkorDB's vector index on Cue.embedding, so `reembed` can
// recreate it (schema_vector) for a new dimension. One index serves every namespace.
// FalkorDB has no IF EXISTS here: "no such index" is the goal state (the caller ignores it).
// params:
// returns:
DROP VECTOR INDEX FOR (c:Cue) ON (c.embedding);
