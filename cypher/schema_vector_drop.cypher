// schema_vector_drop: remove the native vector index on Cue.embedding, so `reembed` can
// recreate it (schema_vector) for a new dimension. One index serves every namespace.
// params:
// returns:
DROP INDEX cue_embedding IF EXISTS;
