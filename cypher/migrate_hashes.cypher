// migrate_hashes: store the text hashes the migration computed.
// params: ns, rows
// returns: hashed
// scope: namespace-wide: part of the one-off provenance migration
UNWIND $rows AS row
MATCH (m:Content {id: row.id})
WHERE m.ns = $ns
SET m.hash = row.hash
RETURN count(m) AS hashed
