// memory_accept: a reviewer accepts one live version.
// params: ns, scopes, id, principal, at
// returns: id, superseded
// The writer can never accept its own memory: checked by the caller and here.
// An agent's correction of an accepted memory is written pending beside it, with a
// SUPERSEDES edge but the old version left current: accepting the correction closes
// the old version's record time now, in the same statement (`superseded`). A version
// superseded itself closes nothing.
MATCH (m:Content {id: $id})
WHERE m.ns = $ns AND m.scope IN $scopes AND m.forgotten_at IS NULL
  AND m.principal <> $principal
SET m.trust = 'accepted', m.reviewed_by = $principal, m.reviewed_at = $at,
    m.trust_at = m.trust_at + [$at], m.trust_log = m.trust_log + ['accepted'],
    m.trust_since = $at
WITH m
OPTIONAL MATCH (m)-[:SUPERSEDES]->(o:Content)
WHERE m.superseded_at IS NULL AND o.ns = $ns AND o.scope IN $scopes
  AND o.superseded_at IS NULL
WITH m, collect(o) AS open
FOREACH (o IN open | SET o.superseded_at = $at)
RETURN m.id AS id, [o IN open | o.id] AS superseded
