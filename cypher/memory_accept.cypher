// memory_accept: a reviewer accepts one live version.
// params: ns, scopes, id, principal, at
// returns: id
// The writer can never accept its own memory: checked by the caller and here.
MATCH (m:Content {id: $id})
WHERE m.ns = $ns AND m.scope IN $scopes AND m.forgotten_at IS NULL
  AND m.principal <> $principal
SET m.trust = 'accepted', m.reviewed_by = $principal, m.reviewed_at = $at,
    m.trust_at = m.trust_at + [$at], m.trust_log = m.trust_log + ['accepted'],
    m.trust_since = $at
RETURN m.id AS id
