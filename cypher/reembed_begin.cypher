// reembed_begin: mark a namespace as migrating to a new embedder, before any vector is
// rewritten. Compare-and-set on the stamp: no row back means another process moved it.
// params: ns, source, target, spec
// returns: migrating_to, version
// scope: namespace-wide: re-embedding covers every scope of the namespace
// The version is bumped even when nothing else changes: readers re-check the space.
{{> bump space}}
WITH space WHERE space.embedder = $source
SET space.migrating_to = $target, space.migrating_spec = $spec, space.migration_cursor = ''
RETURN space.migrating_to AS migrating_to, space.version AS version
