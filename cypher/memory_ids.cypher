// memory_ids: ids of every content in the scopes (tombstones optional), oldest first.
// params: ns, scopes, include_forgotten
// returns: id
MATCH (m:Content)
WHERE m.ns = $ns AND m.scope IN $scopes AND ($include_forgotten OR m.forgotten_at IS NULL)
RETURN m.id AS id
ORDER BY m.recorded_at, m.id
