// rank_links (Neo4j): number each node's outgoing LINKED_TO edges 1..n, strongest first,
// in transactions of `chunk` source nodes each.
// params: ns
// returns: ranked
// render: chunk 1..1000000
// scope: namespace-wide: edges never cross scopes (both ends merge within one), so ranking per node is scope-safe
// One transaction over a whole namespace holds every ranked edge in its state and
// exceeds the default transaction memory limit at 100k contents; ranking is per
// source node, so chunks of source nodes rank exactly as the single statement does.
// Runs only as an auto-commit statement (the store's run, never inside a transaction).
MATCH (s)
WHERE s.ns = $ns AND (s:Cue OR s:Tag)
CALL (s) {
  MATCH (s)-[r:LINKED_TO]->(t:Tag)
  WHERE t.ns = $ns
  {{> rank_links s}}
  RETURN count(r) AS ranked
} IN TRANSACTIONS OF {{chunk}} ROWS
RETURN sum(ranked) AS ranked
