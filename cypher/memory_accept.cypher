// memory_accept: a reviewer accepts one live version.
// params: ns, scopes, id, principal, at
// returns: id, version, superseded
// The writer can never accept its own memory: checked by the caller and here. The
// version is stamped with the new namespace version (v), and its tags' references are
// re-ranked in the same statement (rank_references), so the accepted memory takes its
// fanout slots at once. An agent's correction of an accepted memory is written pending
// beside it, with a SUPERSEDES edge but the old version left current: accepting the
// correction closes the old version's record time now, in the same statement
// (`superseded`, stamped with v too). A version superseded itself closes nothing.
{{> bump space}}
WITH space
MATCH (m:Content {id: $id})
WHERE m.ns = $ns AND m.scope IN $scopes AND m.forgotten_at IS NULL
  AND m.principal <> $principal
SET m.trust = 'accepted', m.reviewed_by = $principal, m.reviewed_at = $at,
    m.trust_at = m.trust_at + [$at], m.trust_log = m.trust_log + ['accepted'],
    m.trust_since = $at, m.v = space.version
WITH space, m
OPTIONAL MATCH (m)-[:SUPERSEDES]->(o:Content)
WHERE m.superseded_at IS NULL AND o.ns = $ns AND o.scope IN $scopes
  AND o.superseded_at IS NULL
WITH space, m, collect(o) AS open
FOREACH (o IN open | SET o.superseded_at = $at, o.v = space.version)
WITH space, m, [o IN open | o.id] AS superseded
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
RETURN m.id AS id, space.version AS version, superseded
