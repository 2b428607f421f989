// tag_edge_counts: how many ranked edges (LINKED_TO and REFERENCES) leave each named tag.
// params: ns, scope, names
// returns: name, edges
// FalkorDB reads a node's degree by type from its adjacency (outdegree), where the
// common query's OPTIONAL MATCH walks every edge: 11 against 54 ms for 2,000 tags of
// the 100k generated memory (41k edges).
MATCH (s:Tag {ns: $ns, scope: $scope})
WHERE s.name IN $names
RETURN s.name AS name, outdegree(s, 'LINKED_TO', 'REFERENCES') AS edges
