// stamp_space: record the embedder identity, the spec that builds it and the store schema
// on a namespace's first write (a reader that names no embedder gets the stamped one).
// params: ns, embedder, spec, schema
// returns: embedder
// scope: namespace-wide: the embedding stamp belongs to the namespace
MERGE (s:MemorySpace {ns: $ns})
ON CREATE SET s.embedder = $embedder, s.embedder_spec = $spec, s.schema = $schema
RETURN s.embedder AS embedder
