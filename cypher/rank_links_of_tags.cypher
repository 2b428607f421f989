// rank_links_of_tags: re-rank the outgoing LINKED_TO edges of the named tags.
// params: ns, scope, names
// returns: ranked
// Called after a write changed edges (ranks.py), on the nodes it touched only, so a
// small write does not pay a pass over the whole graph; an import or a migration
// calls it on every node, in statements of bounded size.
MATCH (s:Tag {ns: $ns, scope: $scope})-[r:LINKED_TO]->(t:Tag)
WHERE s.name IN $names
{{> rank_links s}}
RETURN count(r) AS ranked
