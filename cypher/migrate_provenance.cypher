// migrate_provenance: give the nodes of a namespace written before provenance existed
// a scope, and their contents a writer, trust state, record time and lineage.
// params: ns, scope, principal, at
// returns: cues, tags, contents, version
// scope: namespace-wide: it writes the scope of nodes that have none yet
// Only missing values are filled (legacy_contents fragment), so a re-run changes
// nothing. Legacy contents are recorded at `$at`: that is when the migration vouched
// for them; their real writing time was never stored. Every node it changes is
// stamped with the new namespace version (v).
{{> bump space}}
WITH space.version AS version
OPTIONAL MATCH (c:Cue) WHERE c.ns = $ns AND c.scope IS NULL
WITH version, collect(c) AS cues
FOREACH (c IN cues | SET c.scope = $scope, c.v = version)
WITH version, size(cues) AS cues
OPTIONAL MATCH (t:Tag) WHERE t.ns = $ns AND t.scope IS NULL
WITH version, cues, collect(t) AS tags
FOREACH (t IN tags | SET t.scope = $scope)
WITH version, cues, size(tags) AS tags
OPTIONAL MATCH (m:Content) WHERE m.ns = $ns AND m.trust_since IS NULL
WITH version, cues, tags, collect(m) AS contents
{{> legacy_contents contents}}
RETURN cues, tags, size(contents) AS contents, version
