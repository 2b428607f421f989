// memory_forget: tombstone every version of one memory and cut it out of retrieval.
// params: ns, scopes, lineage, at, reason
// returns: id, tags, tag_names
// The versions keep their hash (so identical text can be refused) but lose every
// REFERENCES edge: no traversal can reach them even without the view predicate.
// SUPERSEDES and DEPENDS_ON stay: history and review still name the tombstone.
// `tags` (ids and names) are the tags that referenced them: pruned if orphaned,
// re-ranked if not.
MATCH (m:Content)
WHERE m.lineage = $lineage AND m.ns = $ns AND m.scope IN $scopes
SET m.forgotten_at = coalesce(m.forgotten_at, $at),
    m.forget_reason = coalesce(m.forget_reason, $reason)
WITH m
OPTIONAL MATCH (t:Tag)-[r:REFERENCES]->(m)
WHERE t.scope IN $scopes
DELETE r
RETURN m.id AS id, collect(t.id) AS tags, collect(t.name) AS tag_names
