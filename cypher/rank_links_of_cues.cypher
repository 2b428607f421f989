// rank_links_of_cues: re-rank the outgoing LINKED_TO edges of the named cues.
// params: ns, scope, texts
// returns: ranked
// Called after a remember, correct or forget changed edges: the same order as the
// namespace-wide query, applied only to the nodes the write touched, so a small
// write does not pay a pass over the whole graph.
MATCH (c:Cue {ns: $ns, scope: $scope})-[r:LINKED_TO]->(t:Tag)
WHERE c.text IN $texts
{{> rank_links c}}
RETURN count(r) AS ranked
