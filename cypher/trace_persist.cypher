// trace_persist: store one explained reconstruction as its own small subgraph.
// params: ns, id, question, created_at, genome, paths, visits
// returns: visited
// scope: namespace-wide: links a trace to nodes a scoped reconstruction already returned; traces are telemetry
// (:Trace {id, ns, question, created_at, genome, paths})-[:VISITED {rank, evidence, kind, entry}]->(n)
// A Trace is telemetry, not memory: its label and VISITED edges are matched by no
// retrieval query, and trace_prune caps how many a namespace keeps. `paths` holds
// each drawn path as its node ids joined by ','. `visits` is a list of
// {id, rank, evidence, kind, entry}; kind is cue, tag, kept, dropped or cut; entry is
// seeded or bridged for a content passage seeding brought in without a cue path, else null.
CREATE (tr:Trace {id: $id, ns: $ns, question: $question, created_at: $created_at,
                  genome: $genome, paths: $paths})
WITH tr
UNWIND $visits AS v
OPTIONAL MATCH (c:Cue {id: v.id})
OPTIONAL MATCH (t:Tag {id: v.id})
OPTIONAL MATCH (m:Content {id: v.id})
WITH tr, v, coalesce(c, t, m) AS n
WHERE n IS NOT NULL AND n.ns = $ns
CREATE (tr)-[:VISITED {rank: v.rank, evidence: v.evidence, kind: v.kind, entry: v.entry}]->(n)
RETURN count(*) AS visited
