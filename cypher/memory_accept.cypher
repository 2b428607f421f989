// memory_accept: a reviewer accepts one live version.
// params: ns, scopes, id, principal, at
// returns: id, version
// The writer can never accept its own memory: checked by the caller and here. The
// version is stamped with the new namespace version (v), and its tags' references are
// re-ranked in the same statement (rank_references), so the accepted memory takes its
// fanout slots at once.
{{> bump space}}
WITH space
MATCH (m:Content {id: $id})
WHERE m.ns = $ns AND m.scope IN $scopes AND m.forgotten_at IS NULL
  AND m.principal <> $principal
SET m.trust = 'accepted', m.reviewed_by = $principal, m.reviewed_at = $at,
    m.trust_at = m.trust_at + [$at], m.trust_log = m.trust_log + ['accepted'],
    m.trust_since = $at, m.v = space.version
WITH space, m
CALL {
  WITH m
  MATCH (t:Tag)-[:REFERENCES]->(m)
  WHERE t.scope IN $scopes
  WITH DISTINCT t
  MATCH (t)-[r:REFERENCES]->(x:Content)
  WHERE x.scope IN $scopes
  WITH t, r, x ORDER BY r.weight DESC, x.key ASC
  WITH t, collect(r) AS refs, collect(x) AS ms
  {{> rank_references}}
  RETURN count(r) AS reranked
}
RETURN m.id AS id, space.version AS version
