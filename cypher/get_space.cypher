// get_space: the embedding stamp of one namespace, if any.
// params: ns
// returns: embedder
MATCH (s:MemorySpace)
WHERE s.ns = $ns
RETURN s.embedder AS embedder
