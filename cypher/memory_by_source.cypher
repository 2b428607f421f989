// memory_by_source: the versions the read view sees whose source starts with $prefix,
// optionally only those named by $ids, with the record time of their first version.
// params: ns, scopes, trust, as_of, prefix, ids
// returns: id, lineage, source, text, trust, principal, recorded_at, created_at
// Integrations that address memories by a key of their own (a LangGraph item's
// namespace and key) keep it in the source; $ids null reads every such version.
MATCH (m:Content)
WHERE {{> visible m}} AND m.source STARTS WITH $prefix AND ($ids IS NULL OR m.id IN $ids)
OPTIONAL MATCH (f:Content)
WHERE f.ns = $ns AND f.scope IN $scopes AND f.scope = m.scope AND f.id = m.lineage
RETURN m.id AS id, m.lineage AS lineage, m.source AS source, m.text AS text,
       {{> trust_at m}} AS trust, m.principal AS principal, m.recorded_at AS recorded_at,
       coalesce(f.recorded_at, m.recorded_at) AS created_at
ORDER BY source, recorded_at, id
