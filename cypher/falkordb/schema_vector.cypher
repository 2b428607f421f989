// schema_vector: native HNSW vector index on Cue.embedding (cosine distance).
// params:
// returns:
// render: dimension 1..4096
CREATE VECTOR INDEX FOR (c:Cue) ON (c.embedding)
OPTIONS {dimension: {{dimension}}, similarityFunction: 'cosine', efRuntime: 256};
