// migrate_versions: stamp the cues and contents of a namespace written before versions
// existed with the namespace's version, so the change feed (index_cues,
// index_contents) finds them.
// params: ns
// returns: cues, contents, version
// scope: namespace-wide: part of the one-off store-schema migration
{{> bump space}}
WITH space
OPTIONAL MATCH (c:Cue) WHERE c.ns = $ns AND c.v IS NULL
WITH space, collect(c) AS cues
FOREACH (c IN cues | SET c.v = space.version)
WITH space, size(cues) AS cues
OPTIONAL MATCH (m:Content) WHERE m.ns = $ns AND m.v IS NULL
WITH space, cues, collect(m) AS contents
FOREACH (m IN contents | SET m.v = space.version)
RETURN cues, size(contents) AS contents, space.version AS version
