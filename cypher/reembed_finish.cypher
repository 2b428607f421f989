// reembed_finish: restamp the namespace with the target embedder and clear the migration.
// params: ns, target, spec
// returns: embedder
// scope: namespace-wide: re-embedding covers every scope of the namespace
MATCH (s:MemorySpace)
WHERE s.ns = $ns AND s.migrating_to = $target
// One property removed per statement: FalkorDB 4.16 removes the wrong ones when a
// statement removes two or more (see memory_purge.cypher); the cursor is reset instead.
SET s.embedder = $target, s.embedder_spec = $spec, s.migration_cursor = '',
    s.migrating_spec = '', s.migrating_to = null
RETURN s.embedder AS embedder
