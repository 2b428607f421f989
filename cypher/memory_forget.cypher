// memory_forget: tombstone every version of one memory and cut it out of retrieval.
// params: ns, scopes, lineage, at, reason, principal
// returns: id, tags, tag_names, cut_tags, version
// The versions keep their hash (so identical text can be refused) but lose every
// REFERENCES edge: no traversal can reach them even without the view predicate.
// SUPERSEDES and DEPENDS_ON stay: history and review still name the tombstone.
// `tags` (ids and names) are the tags that referenced them: pruned if orphaned,
// re-ranked if not. Their ids are also kept on the tombstone (`cut_tags`), so a
// forget run again after a crash before the pruning can still prune them. Each
// version is stamped with the new namespace version (v). A version already
// forgotten keeps its first time, reason and forgetter.
{{> bump space}}
WITH space
MATCH (m:Content)
WHERE m.lineage = $lineage AND m.ns = $ns AND m.scope IN $scopes
WITH space, m, m.forgotten_at IS NULL AS fresh
SET m.forgotten_at = CASE WHEN fresh THEN $at ELSE m.forgotten_at END,
    m.forget_reason = CASE WHEN fresh THEN $reason ELSE m.forget_reason END,
    m.forgotten_by = CASE WHEN fresh THEN $principal ELSE m.forgotten_by END,
    m.v = space.version
WITH space, m
OPTIONAL MATCH (t:Tag)-[r:REFERENCES]->(m)
WHERE t.scope IN $scopes
DELETE r
WITH space, m, collect(t.id) AS tags, collect(t.name) AS tag_names
SET m.cut_tags = coalesce(m.cut_tags, []) + tags
RETURN m.id AS id, tags, tag_names, m.cut_tags AS cut_tags, space.version AS version
