// trace_purge: delete the traces of a namespace that name a purged memory.
// params: ns, lineage, ids
// returns: deleted
// scope: namespace-wide: traces are telemetry, and a purge erases its text from all of them
// A trace names it when it visited a version of the memory (the lineage), or when
// its question quotes one of the versions' texts: the caller matches those
// questions itself and passes their trace ids, so the text is never a parameter.
MATCH (tr:Trace)
WHERE tr.ns = $ns
OPTIONAL MATCH (tr)-[:VISITED]->(m:Content)
WHERE m.ns = $ns AND m.lineage = $lineage
WITH tr, count(m) AS visits
WHERE visits > 0 OR tr.id IN $ids
DETACH DELETE tr
RETURN count(*) AS deleted
