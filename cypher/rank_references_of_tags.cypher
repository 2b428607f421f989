// rank_references_of_tags: re-rank the outgoing REFERENCES edges of the named tags.
// params: ns, scope, names
// returns: ranked
// Called after a write changed edges (ranks.py), on the nodes it touched only, so a
// small write does not pay a pass over the whole graph; an import or a migration
// calls it on every node, in statements of bounded size.
MATCH (s:Tag {ns: $ns, scope: $scope})-[r:REFERENCES]->(m:Content)
WHERE s.name IN $names
WITH s, r, m ORDER BY r.weight DESC, m.key ASC
WITH s, collect(r) AS refs, collect(m) AS ms
SET s.refs = size(refs)
{{> rank_references}}
RETURN count(r) AS ranked
