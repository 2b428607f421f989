// memory_agent_forgets: the review queue's forgets: memories an agent forgot that no
// human has reviewed since (their versions current when forgotten), oldest forget first.
// A review older than the forget (a restore, then a new forget) does not count.
// params: ns, scopes, limit
// returns: id, lineage, scope, principal, forgotten_by, forgotten_at, forget_reason, text
MATCH (m:Content)
WHERE m.ns = $ns AND m.scope IN $scopes AND m.forgotten_at IS NOT NULL
  AND m.purged_at IS NULL AND m.superseded_at IS NULL
  AND m.forgotten_by STARTS WITH 'agent:'
  AND (m.forget_reviewed_at IS NULL OR m.forget_reviewed_at < m.forgotten_at)
RETURN m.id AS id, m.lineage AS lineage, m.scope AS scope, m.principal AS principal,
       m.forgotten_by AS forgotten_by, m.forgotten_at AS forgotten_at,
       m.forget_reason AS forget_reason, m.text AS text
ORDER BY forgotten_at, id
LIMIT $limit
