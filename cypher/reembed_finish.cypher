// reembed_finish: restamp the namespace with the target embedder and clear the migration.
// params: ns, target, spec
// returns: embedder, version
// scope: namespace-wide: re-embedding covers every scope of the namespace
{{> bump space}}
WITH space WHERE space.migrating_to = $target
// One property removed per statement: FalkorDB 4.16 removes the wrong ones when a
// statement removes two or more (see memory_purge.cypher); the cursor is reset instead.
SET space.embedder = $target, space.embedder_spec = $spec, space.migration_cursor = '',
    space.migrating_spec = '', space.migrating_to = null
RETURN space.embedder AS embedder, space.version AS version
