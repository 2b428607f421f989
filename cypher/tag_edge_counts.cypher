// tag_edge_counts: how many ranked edges (LINKED_TO and REFERENCES) leave each named tag.
// params: ns, scope, names
// returns: name, edges
// Read before ranking a large write's tags, so each ranking statement holds a bounded
// number of edges (ranks.rank_touched): a year tag has thousands of edges, most tags
// a few, and names sorted together (years) would otherwise share one statement.
MATCH (s:Tag {ns: $ns, scope: $scope})
WHERE s.name IN $names
OPTIONAL MATCH (s)-[r]->()
WHERE type(r) IN ['LINKED_TO', 'REFERENCES']
RETURN s.name AS name, count(r) AS edges
