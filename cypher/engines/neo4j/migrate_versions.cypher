// migrate_versions (Neo4j): stamp the cues and contents of a namespace written before
// versions existed with the namespace's version, in transactions of `chunk` nodes each.
// params: ns
// returns: cues, contents, version
// render: chunk 1..1000000
// scope: namespace-wide: part of the one-off store-schema migration
// Neo4j allows no write before a CALL IN TRANSACTIONS: the version bump is a chunk of
// its own, committed first; every later chunk stamps the version it returned.
// Runs only as an auto-commit statement (the store's run, never inside a transaction).
CALL () {
  {{> bump space}}
  RETURN space.version AS version
} IN TRANSACTIONS
OPTIONAL MATCH (n)
WHERE n.ns = $ns AND n.v IS NULL AND (n:Cue OR n:Content)
CALL (n, version) {
  SET n.v = version
} IN TRANSACTIONS OF {{chunk}} ROWS
RETURN count(CASE WHEN n:Cue THEN 1 END) AS cues,
       count(CASE WHEN n:Content THEN 1 END) AS contents, version
