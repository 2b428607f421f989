// namespaces: every namespace holding memories, with its embedding stamp.
// params:
// returns: ns, embedder
MATCH (s:MemorySpace)
RETURN s.ns AS ns, s.embedder AS embedder
ORDER BY ns
