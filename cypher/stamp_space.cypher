// stamp_space: record the embedder identity and the store schema on a namespace's first write.
// params: ns, embedder, schema
// returns: embedder
// scope: namespace-wide: the embedding stamp belongs to the namespace
MERGE (s:MemorySpace {ns: $ns})
ON CREATE SET s.embedder = $embedder, s.schema = $schema
RETURN s.embedder AS embedder
