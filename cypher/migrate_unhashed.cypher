// migrate_unhashed: contents of a namespace that have no text hash yet.
// params: ns, limit
// returns: id, text
// scope: namespace-wide: part of the one-off provenance migration
MATCH (m:Content)
WHERE m.ns = $ns AND m.hash IS NULL AND m.text IS NOT NULL
RETURN m.id AS id, m.text AS text
LIMIT $limit
