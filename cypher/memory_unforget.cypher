// memory_unforget: a human rejects an agent's forget: the memory's versions live again.
// params: ns, scopes, lineage, principal, at
// returns: id, version
// Runs after the versions' tags, cues and REFERENCES edges were rebuilt (ingest_batch
// on their keys), so lifting the tombstones is the one step that makes them visible.
// Purged versions have no text to restore and stay tombstones. One property is
// removed (forgotten_at); the reason and forgetter stay as the record of what
// happened, with the review that undid it. Each version is stamped with the new
// namespace version (v): a live reader sees it return.
{{> bump space}}
WITH space
MATCH (m:Content)
WHERE m.lineage = $lineage AND m.ns = $ns AND m.scope IN $scopes
  AND m.forgotten_at IS NOT NULL AND m.purged_at IS NULL
SET m.forgotten_at = null, m.forget_reviewed_by = $principal, m.forget_reviewed_at = $at,
    m.cut_tags = [], m.v = space.version
RETURN m.id AS id, space.version AS version
