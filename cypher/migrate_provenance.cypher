// migrate_provenance: give the nodes of a namespace written before provenance existed
// a scope, and their contents a writer, trust state, record time and lineage.
// params: ns, scope, principal, at
// returns: cues, tags, contents, version
// scope: namespace-wide: it writes the scope of nodes that have none yet
// Only missing values are filled (coalesce), so a re-run changes nothing. Legacy
// contents become accepted memories of `$principal`, recorded at `$at`: that is when
// the migration vouched for them; their real writing time was never stored. Every
// node it changes is stamped with the new namespace version (v).
{{> bump space}}
WITH space
OPTIONAL MATCH (c:Cue) WHERE c.ns = $ns AND c.scope IS NULL
WITH space, collect(c) AS cues
FOREACH (c IN cues | SET c.scope = $scope, c.v = space.version)
WITH space, size(cues) AS cues
OPTIONAL MATCH (t:Tag) WHERE t.ns = $ns AND t.scope IS NULL
WITH space, cues, collect(t) AS tags
FOREACH (t IN tags | SET t.scope = $scope)
WITH space, cues, size(tags) AS tags
OPTIONAL MATCH (m:Content) WHERE m.ns = $ns AND m.trust_since IS NULL
WITH space, cues, tags, collect(m) AS contents
FOREACH (m IN contents |
  SET m.scope = coalesce(m.scope, $scope), m.principal = coalesce(m.principal, $principal),
      m.trust = coalesce(m.trust, 'accepted'), m.recorded_at = coalesce(m.recorded_at, $at),
      m.lineage = coalesce(m.lineage, m.id))
FOREACH (m IN contents |
  SET m.valid_from = coalesce(m.valid_from, m.recorded_at), m.trust_at = [m.recorded_at],
      m.trust_log = [m.trust], m.trust_since = m.recorded_at, m.v = space.version)
RETURN cues, tags, size(contents) AS contents, space.version AS version
