// trace_paths: the paths a persisted trace used, matched back in the memory graph by id.
// params: ns, id
// returns: ids
// scope: namespace-wide: re-draws the paths a scoped reconstruction already returned
// The same query, with the trace id written in, draws the trace in Neo4j Browser
// (see the README). A path whose nodes were since deleted no longer matches.
MATCH (tr:Trace {id: $id})
WHERE tr.ns = $ns
UNWIND tr.paths AS path
WITH split(path, ',') AS ids
MATCH p = (c:Cue {id: ids[0]})-[:LINKED_TO*1..4]->(:Tag)-[:REFERENCES]->(m:Content {id: ids[-1]})
WHERE [n IN nodes(p) | n.id] = ids
RETURN [n IN nodes(p) | n.id] AS ids
