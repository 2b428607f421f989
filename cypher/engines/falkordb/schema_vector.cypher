// schema_vector: native HNSW vector index on Cue.embedding (cosine distance).
// params:
// returns:
// render: dimension 1..4096
// Every new cue is inserted into this index in the write that creates it, so its build
// effort is paid by ingest: at FalkorDB's default efConstruction (200) the inserts were
// two thirds of a batch's server time. 64 candidates per insert cut that by two thirds;
// searches keep a wide beam (efRuntime), and the reader's own index (hnswlib, built
// with efConstruction 200) is the one reconstruction uses.
CREATE VECTOR INDEX FOR (c:Cue) ON (c.embedding)
OPTIONS {dimension: {{dimension}}, similarityFunction: 'cosine', M: 16, efConstruction: 64,
         efRuntime: 256};
