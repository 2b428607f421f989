// reembed_others: every other namespace of the database with its embedding stamp, so a
// re-embedding that changes the dimension can refuse to break their shared vector index.
// params: ns
// returns: ns, embedder, migrating_to
// scope: namespace-wide: re-embedding covers every scope of the namespace
MATCH (s:MemorySpace)
WHERE s.ns <> $ns
RETURN s.ns AS ns, s.embedder AS embedder, s.migrating_to AS migrating_to
ORDER BY ns
