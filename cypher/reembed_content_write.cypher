// reembed_content_write: store one batch of new passage vectors and advance the migration
// cursor, in ONE statement (as reembed_write, for contents).
// params: ns, target, cursor, contents
// returns: written
// scope: namespace-wide: re-embedding covers every scope of the namespace
// contents: [{id, embedding}]; each rewritten content is marked with the target identity.
// Nothing is written unless the namespace is migrating to $target.
MATCH (s:MemorySpace)
WHERE s.ns = $ns AND s.migrating_to = $target
SET s.migration_cursor = $cursor
WITH s
UNWIND $contents AS rec
MATCH (m:Content)
WHERE m.ns = $ns AND m.id = rec.id AND m.forgotten_at IS NULL
SET m.embedding = rec.embedding, m.embedder = $target
RETURN count(m) AS written
