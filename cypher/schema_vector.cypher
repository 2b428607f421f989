// schema_vector: native HNSW vector index on Cue.embedding (cosine similarity).
// Quantisation off: scores must be exact enough to compare with the in-process index.
// params:
// returns:
// render: dimension 1..4096
CREATE VECTOR INDEX cue_embedding IF NOT EXISTS FOR (c:Cue) ON c.embedding
OPTIONS {indexConfig: {
  `vector.dimensions`: {{dimension}},
  `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false
}};
