// cue_edge_counts: how many LINKED_TO edges leave each named cue.
// params: ns, scope, texts
// returns: name, edges
// Read before ranking a large write's cues (see tag_edge_counts).
MATCH (c:Cue {ns: $ns, scope: $scope})
WHERE c.text IN $texts
OPTIONAL MATCH (c)-[r:LINKED_TO]->()
RETURN c.text AS name, count(r) AS edges
