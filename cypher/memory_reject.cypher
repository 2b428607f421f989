// memory_reject: a reviewer rejects one version; its dependents return to pending.
// params: ns, scopes, id, principal, at
// returns: id, demoted
// Demotion is transitive: anything that DEPENDS_ON the rejected memory through any
// chain of dependencies, and was accepted, is pending again, in the same statement.
MATCH (m:Content {id: $id})
WHERE m.ns = $ns AND m.scope IN $scopes AND m.forgotten_at IS NULL
  AND m.principal <> $principal
SET m.trust = 'rejected', m.reviewed_by = $principal, m.reviewed_at = $at,
    m.trust_at = m.trust_at + [$at], m.trust_log = m.trust_log + ['rejected'],
    m.trust_since = $at
WITH m
OPTIONAL MATCH (d:Content)-[:DEPENDS_ON*1..32]->(m)
WHERE d.ns = $ns AND d.scope IN $scopes AND d.trust = 'accepted'
// Distinct first: a dependent reached by two chains is demoted (and logged) once.
WITH m, collect(DISTINCT d) AS demoted
FOREACH (d IN demoted |
  SET d.trust = 'pending', d.trust_at = d.trust_at + [$at],
      d.trust_log = d.trust_log + ['pending'], d.trust_since = $at)
RETURN m.id AS id, [d IN demoted | d.id] AS demoted
