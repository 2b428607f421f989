// reembed_count: cues of a namespace, and how many still lack a vector from the target.
// params: ns, target
// returns: cues, pending
// scope: namespace-wide: re-embedding covers every scope of the namespace
MATCH (c:Cue)
WHERE c.ns = $ns
RETURN count(c) AS cues, sum(CASE WHEN c.embedder = $target THEN 0 ELSE 1 END) AS pending
