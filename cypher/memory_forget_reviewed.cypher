// memory_forget_reviewed: a human confirms an agent's forget of one memory.
// params: ns, scopes, lineage, principal, at
// returns: id, version
// The tombstones stay; they leave the review queue (memory_agent_forgets).
{{> bump space}}
WITH space
MATCH (m:Content)
WHERE m.lineage = $lineage AND m.ns = $ns AND m.scope IN $scopes
  AND m.forgotten_at IS NOT NULL
SET m.forget_reviewed_by = $principal, m.forget_reviewed_at = $at
RETURN m.id AS id, space.version AS version
