// stamp_space: record the embedder identity on a namespace's first write.
// params: ns, embedder
// returns: embedder
// scope: namespace-wide: the embedding stamp belongs to the namespace
MERGE (s:MemorySpace {ns: $ns})
ON CREATE SET s.embedder = $embedder
RETURN s.embedder AS embedder
