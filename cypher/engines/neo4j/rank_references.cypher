// rank_references (Neo4j): number each tag's outgoing REFERENCES edges, strongest
// first, in transactions of `chunk` tags each.
// params: ns
// returns: ranked
// render: chunk 1..1000000
// scope: namespace-wide: edges never cross scopes (both ends merge within one), so ranking per node is scope-safe
// The order and the three ranks are the common query's (rank_references fragment);
// ranking is per tag, so chunks of tags rank exactly as one statement does, without
// one transaction holding every edge of the namespace.
// Runs only as an auto-commit statement (the store's run, never inside a transaction).
MATCH (t:Tag)
WHERE t.ns = $ns
CALL (t) {
  MATCH (t)-[r:REFERENCES]->(m:Content)
  WHERE m.ns = $ns
  WITH t, r, m ORDER BY r.weight DESC, m.key ASC
  WITH t, collect(r) AS refs, collect(m) AS ms
  SET t.refs = size(refs)
  {{> rank_references}}
  RETURN count(r) AS ranked
} IN TRANSACTIONS OF {{chunk}} ROWS
RETURN sum(ranked) AS ranked
