// cue_edge_counts: how many LINKED_TO edges leave each named cue.
// params: ns, scope, texts
// returns: name, edges
// FalkorDB reads the degree from its adjacency (see its tag_edge_counts).
MATCH (c:Cue {ns: $ns, scope: $scope})
WHERE c.text IN $texts
RETURN c.text AS name, outdegree(c, 'LINKED_TO') AS edges
