// migrate_provenance (Neo4j): the common query's migration (legacy_contents fragment),
// in transactions of `chunk` nodes each.
// params: ns, scope, principal, at
// returns: cues, tags, contents, version
// render: chunk 1..1000000
// scope: namespace-wide: it writes the scope of nodes that have none yet
// Neo4j allows no write before a CALL IN TRANSACTIONS: the version bump is a chunk of
// its own, committed first; every later chunk stamps the version it returned. Setting a
// dozen properties on every content of a large namespace in one transaction exceeds
// the default transaction memory limit.
// Runs only as an auto-commit statement (the store's run, never inside a transaction).
CALL () {
  {{> bump space}}
  RETURN space.version AS version
} IN TRANSACTIONS
OPTIONAL MATCH (n)
WHERE n.ns = $ns
  AND ((n:Cue OR n:Tag) AND n.scope IS NULL OR n:Content AND n.trust_since IS NULL)
CALL (n, version) {
  FOREACH (c IN CASE WHEN n:Cue THEN [n] ELSE [] END | SET c.scope = $scope, c.v = version)
  FOREACH (t IN CASE WHEN n:Tag THEN [n] ELSE [] END | SET t.scope = $scope)
  WITH n, version, CASE WHEN n:Content THEN [n] ELSE [] END AS contents
  {{> legacy_contents contents}}
} IN TRANSACTIONS OF {{chunk}} ROWS
RETURN count(CASE WHEN n:Cue THEN 1 END) AS cues, count(CASE WHEN n:Tag THEN 1 END) AS tags,
       count(CASE WHEN n:Content THEN 1 END) AS contents, version
