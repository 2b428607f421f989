// memory_restore_edges: link imported versions by SUPERSEDES and DEPENDS_ON.
// params: ns, scope, edges
// returns: linked, version
// `edges` are {src, dst, kind} with kind 'supersedes' or 'depends_on'; both ends
// exist already (memory_restore runs first), so MATCH, never MERGE, the nodes:
// a missing end links nothing (the caller compares `linked` with what it sent)
// instead of creating an empty version.
{{> bump space}}
WITH space
UNWIND $edges AS e
MATCH (s:Content {ns: $ns, scope: $scope, id: e.src})
MATCH (d:Content {ns: $ns, scope: $scope, id: e.dst})
FOREACH (_ IN CASE WHEN e.kind = 'supersedes' THEN [1] ELSE [] END |
  MERGE (s)-[:SUPERSEDES]->(d))
FOREACH (_ IN CASE WHEN e.kind = 'depends_on' THEN [1] ELSE [] END |
  MERGE (s)-[:DEPENDS_ON]->(d))
RETURN count(*) AS linked, max(space.version) AS version
