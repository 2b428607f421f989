// rank_links_of_tags: re-rank the outgoing LINKED_TO edges of the named tags.
// params: ns, scope, names
// returns: ranked
// Called after a remember, correct or forget changed edges: the same order as the
// namespace-wide query, applied only to the nodes the write touched, so a small
// write does not pay a pass over the whole graph.
MATCH (s:Tag {ns: $ns, scope: $scope})-[r:LINKED_TO]->(t:Tag)
WHERE s.name IN $names
{{> rank_links s}}
RETURN count(r) AS ranked
