// memory_purge: erase the text of every version of a forgotten memory.
// params: ns, scopes, lineage, at
// returns: id, hash, version
// Only tombstones are purged; the hash stays so identical text remains refused.
// The title, source, given tags and cues (words of the text) and the passage
// embedding (a function of the text) are overwritten with empty values rather than
// removed: FalkorDB 4.16 removes the wrong properties when one
// statement removes two or more of a node's properties (then the tombstone's own
// forgotten_at could go), while one removal among updates is safe.
// The namespace records the version of its last purge (purged_v): every index file a
// reader persisted before it may hold words of the erased text and is void.
{{> bump space}}
SET space.purged_v = space.version
WITH space
MATCH (m:Content)
WHERE m.lineage = $lineage AND m.ns = $ns AND m.scope IN $scopes
  AND m.forgotten_at IS NOT NULL
SET m.purged_at = coalesce(m.purged_at, $at), m.title = '', m.source = '',
    m.given_tags = [], m.given_cues = [], m.embedding = [], m.text = null, m.v = space.version
RETURN m.id AS id, m.hash AS hash, space.version AS version
