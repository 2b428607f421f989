// reembed_begin: mark a namespace as migrating to a new embedder, before any vector is
// rewritten. Compare-and-set on the stamp: no row back means another process moved it.
// params: ns, source, target, spec
// returns: migrating_to
// scope: namespace-wide: re-embedding covers every scope of the namespace
MATCH (s:MemorySpace)
WHERE s.ns = $ns AND s.embedder = $source
SET s.migrating_to = $target, s.migrating_spec = $spec, s.migration_cursor = ''
RETURN s.migrating_to AS migrating_to
