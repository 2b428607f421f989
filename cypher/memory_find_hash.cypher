// memory_find_hash: contents of a scope whose text has this hash (tombstones included).
// params: ns, scopes, hash
// returns: id, lineage, trust, superseded_at, forgotten_at
// A purged tombstone keeps its hash, so identical text stays refused after purge.
MATCH (m:Content)
WHERE m.hash = $hash AND m.ns = $ns AND m.scope IN $scopes
RETURN m.id AS id, m.lineage AS lineage, m.trust AS trust,
       m.superseded_at AS superseded_at, m.forgotten_at AS forgotten_at
ORDER BY m.recorded_at, m.id
