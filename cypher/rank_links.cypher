// rank_links: number each node's outgoing LINKED_TO edges 1..n, strongest first.
// params: ns
// returns: ranked
// scope: namespace-wide: edges never cross scopes (both ends merge within one), so ranking per node is scope-safe
// The order (rank_links fragment) breaks ties on the target tag's name.
// The traversal expands only edges with rank <= tagFanout.
MATCH (s)-[r:LINKED_TO]->(t:Tag)
WHERE s.ns = $ns AND t.ns = $ns
{{> rank_links s}}
RETURN count(r) AS ranked
