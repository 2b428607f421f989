// rank_links_of_cues: re-rank the outgoing LINKED_TO edges of the named cues.
// params: ns, scope, texts
// returns: ranked
// Called after a write changed edges (ranks.py), on the nodes it touched only, so a
// small write does not pay a pass over the whole graph; an import or a migration
// calls it on every node, in statements of bounded size.
MATCH (c:Cue {ns: $ns, scope: $scope})-[r:LINKED_TO]->(t:Tag)
WHERE c.text IN $texts
{{> rank_links c}}
RETURN count(r) AS ranked
