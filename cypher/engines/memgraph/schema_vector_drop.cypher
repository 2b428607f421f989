// schema_vector_drop: remove Memgraph's vector index on Cue.embedding, so `reembed` can
// recreate it (schema_vector) for a new dimension. One index serves every namespace.
// An absent index is the goal state (the caller ignores that error).
// params:
// returns:
DROP VECTOR INDEX cue_embedding;
