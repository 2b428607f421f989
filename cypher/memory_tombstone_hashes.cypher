// memory_tombstone_hashes: the text hashes of a scope's forgotten memories.
// params: ns, scopes
// returns: hash, lineage
// Read by every write path that takes texts in bulk (ingest, import) to refuse a
// text identical to a forgotten one unless it is re-admitted explicitly.
MATCH (m:Content)
WHERE m.ns = $ns AND m.scope IN $scopes AND m.forgotten_at IS NOT NULL
RETURN m.hash AS hash, m.lineage AS lineage
ORDER BY m.recorded_at, m.id
