// memory_pending: the review queue: live, current, pending versions, oldest first.
// params: ns, scopes, limit
// returns: id, scope, principal, recorded_at, text, corrects
// `corrects`: the current versions a pending correction supersedes once accepted.
MATCH (m:Content)
WHERE m.ns = $ns AND m.scope IN $scopes AND m.trust = 'pending'
  AND m.forgotten_at IS NULL AND m.superseded_at IS NULL
OPTIONAL MATCH (m)-[:SUPERSEDES]->(o:Content)
WHERE o.scope IN $scopes AND o.superseded_at IS NULL
WITH m, collect(o.id) AS corrects
RETURN m.id AS id, m.scope AS scope, m.principal AS principal,
       m.recorded_at AS recorded_at, m.text AS text, corrects
ORDER BY recorded_at, id
LIMIT $limit
