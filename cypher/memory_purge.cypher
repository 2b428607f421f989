// memory_purge: erase the text of every version of a forgotten memory.
// params: ns, scopes, lineage, at
// returns: id, hash
// Only tombstones are purged; the hash stays so identical text remains refused.
MATCH (m:Content)
WHERE m.lineage = $lineage AND m.ns = $ns AND m.scope IN $scopes
  AND m.forgotten_at IS NOT NULL
SET m.text = null, m.title = null, m.given_tags = null, m.given_cues = null,
    m.purged_at = coalesce(m.purged_at, $at)
RETURN m.id AS id, m.hash AS hash
