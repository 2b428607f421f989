// schema_vector: native vector index on Cue.embedding (cosine).
// params:
// returns:
// render: dimension 1..4096
CREATE VECTOR INDEX cue_embedding ON :Cue(embedding)
WITH CONFIG {"dimension": {{dimension}}, "capacity": 1000000, "metric": "cos"};
