// rank_references_of_tags: re-rank the outgoing REFERENCES edges of the named tags.
// params: ns, scope, names
// returns: ranked
// Called after a remember, correct or forget changed edges: the same order as the
// namespace-wide query, applied only to the nodes the write touched, so a small
// write does not pay a pass over the whole graph.
MATCH (s:Tag {ns: $ns, scope: $scope})-[r:REFERENCES]->(m:Content)
WHERE s.name IN $names
WITH s, r, m ORDER BY r.weight DESC, m.key ASC
WITH s, collect(r) AS refs, collect(m) AS ms
SET s.refs = size(refs)
{{> rank_references}}
RETURN count(r) AS ranked
