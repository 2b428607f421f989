// memory_tombstone_hashes: the text hashes of a namespace's forgotten memories.
// params: ns
// returns: hash, fhash, lineage, scope
// scope: namespace-wide: a text forgotten in one scope stays refused in every other
// Read by every write path (remember, correct, ingest, import) to refuse a text
// identical to a forgotten one, once whitespace is normalised (fhash), unless it
// is re-admitted explicitly. fhash is null on tombstones written before it was
// kept: those match their exact hash.
MATCH (m:Content)
WHERE m.ns = $ns AND m.forgotten_at IS NOT NULL
RETURN m.hash AS hash, m.fhash AS fhash, m.lineage AS lineage, m.scope AS scope
ORDER BY m.recorded_at, m.id
