// rank_links: number each node's outgoing LINKED_TO edges 1..n, strongest first.
// params: ns
// returns: ranked
// scope: namespace-wide: edges never cross scopes (both ends merge within one), so ranking per node is scope-safe
// Ties break on the target tag's name so every engine ranks identically.
// The traversal expands only edges with rank <= tagFanout.
MATCH (s)-[r:LINKED_TO]->(t:Tag)
WHERE s.ns = $ns AND t.ns = $ns
WITH s, r, t ORDER BY r.weight DESC, t.name ASC
WITH s, collect(r) AS links
UNWIND range(0, size(links) - 1) AS i
WITH links[i] AS r, i
SET r.rank = i + 1
RETURN count(r) AS ranked
