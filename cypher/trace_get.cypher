// trace_get: the persisted traces of a namespace, newest first, with what they visited.
// params: ns, limit
// returns: id, question, created_at, genome, paths, visits
// scope: namespace-wide: reads telemetry (traces), not memories
MATCH (tr:Trace)
WHERE tr.ns = $ns
WITH tr ORDER BY tr.created_at DESC, tr.id DESC
LIMIT $limit
OPTIONAL MATCH (tr)-[v:VISITED]->(n)
WITH tr, collect({id: n.id, rank: v.rank, evidence: v.evidence, kind: v.kind, entry: v.entry}) AS visits
RETURN tr.id AS id, tr.question AS question, tr.created_at AS created_at,
       tr.genome AS genome, tr.paths AS paths, visits
ORDER BY created_at DESC, id DESC
