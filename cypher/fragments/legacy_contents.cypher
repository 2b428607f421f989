// fragment: legacy_contents(ms)
// params: scope, principal, at
// Fill what the contents of list ms, written before provenance existed, lack (coalesce:
// a re-run changes nothing) and stamp them with the namespace version `version` the
// including query binds. Legacy contents become accepted memories of $principal
// recorded at $at. Two passes: the second reads values the first filled in.
FOREACH (m IN ms |
  SET m.scope = coalesce(m.scope, $scope), m.principal = coalesce(m.principal, $principal),
      m.trust = coalesce(m.trust, 'accepted'), m.recorded_at = coalesce(m.recorded_at, $at),
      m.lineage = coalesce(m.lineage, m.id))
FOREACH (m IN ms |
  SET m.valid_from = coalesce(m.valid_from, m.recorded_at), m.trust_at = [m.recorded_at],
      m.trust_log = [m.trust], m.trust_since = m.recorded_at, m.v = version)
