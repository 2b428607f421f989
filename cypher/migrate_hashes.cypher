// migrate_hashes: store the text hashes the migration computed.
// params: ns, rows
// returns: hashed, version
// scope: namespace-wide: part of the one-off provenance migration
{{> bump space}}
WITH space
UNWIND $rows AS row
MATCH (m:Content {id: row.id})
WHERE m.ns = $ns
SET m.hash = row.hash
RETURN count(m) AS hashed, max(space.version) AS version
