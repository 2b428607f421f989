// reembed_content_write: store one batch of new passage vectors and advance the migration
// cursor, in ONE statement (as reembed_write, for contents).
// params: ns, target, cursor, contents
// returns: written, version
// scope: namespace-wide: re-embedding covers every scope of the namespace
// contents: [{id, embedding}]; each rewritten content is marked with the target identity
// and stamped with the new namespace version (v), as every write stamps what it changes.
// Nothing is written unless the namespace is migrating to $target.
// REMOVE before SET: FalkorDB 4.16 silently keeps the old value when a vecf32
// property is overwritten in place.
{{> bump space}}
WITH space WHERE space.migrating_to = $target
SET space.migration_cursor = $cursor
WITH space
UNWIND $contents AS rec
MATCH (m:Content)
WHERE m.ns = $ns AND m.id = rec.id AND m.forgotten_at IS NULL
REMOVE m.embedding
SET m.embedding = {{> vector rec.embedding}}, m.embedder = $target, m.v = space.version
RETURN count(m) AS written, max(m.v) AS version
