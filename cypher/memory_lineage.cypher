// memory_lineage: ids of every version of one memory, oldest first.
// params: ns, scopes, lineage
// returns: id
MATCH (m:Content)
WHERE m.lineage = $lineage AND m.ns = $ns AND m.scope IN $scopes
RETURN m.id AS id
ORDER BY m.recorded_at, m.id
