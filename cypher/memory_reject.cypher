// memory_reject: a reviewer rejects one version; its dependents return to pending.
// params: ns, scopes, id, principal, at
// returns: id, demoted, version
// Demotion is transitive: anything that DEPENDS_ON the rejected memory through any
// chain of dependencies, and was accepted, is pending again, in the same statement.
// The rejected and demoted versions are stamped with the new namespace version (v), and
// their tags' references re-ranked in the same statement (rank_references): a rejected
// memory leaves its fanout slots, a demoted one keeps only its pending-view slots.
{{> bump space}}
WITH space
MATCH (m:Content {id: $id})
WHERE m.ns = $ns AND m.scope IN $scopes AND m.forgotten_at IS NULL
  AND m.principal <> $principal
SET m.trust = 'rejected', m.reviewed_by = $principal, m.reviewed_at = $at,
    m.trust_at = m.trust_at + [$at], m.trust_log = m.trust_log + ['rejected'],
    m.trust_since = $at, m.v = space.version
WITH space, m
OPTIONAL MATCH (d:Content)-[:DEPENDS_ON*1..32]->(m)
WHERE d.ns = $ns AND d.scope IN $scopes AND d.trust = 'accepted'
// Distinct first: a dependent reached by two chains is demoted (and logged) once.
WITH space, m, collect(DISTINCT d) AS demoted
FOREACH (d IN demoted |
  SET d.trust = 'pending', d.trust_at = d.trust_at + [$at],
      d.trust_log = d.trust_log + ['pending'], d.trust_since = $at, d.v = space.version)
WITH space, m, demoted
CALL {
  WITH m, demoted
  UNWIND [m] + demoted AS changed
  MATCH (t:Tag)-[:REFERENCES]->(changed)
  WHERE t.scope IN $scopes
  WITH DISTINCT t
  MATCH (t)-[r:REFERENCES]->(x:Content)
  WHERE x.scope IN $scopes
  WITH t, r, x ORDER BY r.weight DESC, x.key ASC
  WITH t, collect(r) AS refs, collect(x) AS ms
  {{> rank_references}}
  RETURN count(r) AS reranked
}
RETURN m.id AS id, [d IN demoted | d.id] AS demoted, space.version AS version
