// rank_links_of_tags: re-rank the outgoing LINKED_TO edges of the named tags.
// params: ns, scope, names
// returns: ranked
// Called after a remember, correct or forget changed edges: the same order as the
// namespace-wide query, applied only to the nodes the write touched, so a small
// write does not pay a pass over the whole graph.
MATCH (s:Tag {ns: $ns, scope: $scope})-[r:LINKED_TO]->(t:Tag)
WHERE s.name IN $names
WITH s, r, t ORDER BY r.weight DESC, t.name ASC
WITH s, collect(r) AS links
UNWIND range(0, size(links) - 1) AS i
WITH links[i] AS r, i
SET r.rank = i + 1
RETURN count(r) AS ranked
