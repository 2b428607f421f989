// reembed_finish: restamp the namespace with the target embedder and clear the migration.
// params: ns, target
// returns: embedder
// scope: namespace-wide: re-embedding covers every scope of the namespace
MATCH (s:MemorySpace)
WHERE s.ns = $ns AND s.migrating_to = $target
SET s.embedder = $target, s.migrating_to = null, s.migration_cursor = null
RETURN s.embedder AS embedder
