// trace_nodes: names of the nodes on a reconstruction's paths, and the edges between them.
// params: ns, ids
// returns: id, label, name, out
// scope: namespace-wide: names the nodes a scoped reconstruction already returned
// Read by `mragent explain` only. Each id is looked up under the three memory labels
// (an index lookup each); the first that exists is the node. `out` lists its
// LINKED_TO and REFERENCES edges to other nodes of $ids, with their weights, so
// the explanation can show evidence along every edge of a path.
UNWIND $ids AS wanted
OPTIONAL MATCH (c:Cue {id: wanted})
OPTIONAL MATCH (t:Tag {id: wanted})
OPTIONAL MATCH (m:Content {id: wanted})
WITH coalesce(c, t, m) AS n,
     CASE WHEN c IS NOT NULL THEN 'Cue' WHEN t IS NOT NULL THEN 'Tag' ELSE 'Content' END AS label,
     coalesce(c.text, t.name, m.title, m.key) AS name
WHERE n IS NOT NULL AND n.ns = $ns
OPTIONAL MATCH (n)-[e:LINKED_TO|REFERENCES]->(x)
WHERE x.id IN $ids AND x.ns = $ns
WITH n, label, name, collect({to: x.id, type: type(e), weight: e.weight, rank: e.rank}) AS out
RETURN n.id AS id, label, name, out
ORDER BY id
