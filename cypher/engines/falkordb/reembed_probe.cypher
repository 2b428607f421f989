// reembed_probe: one query against FalkorDB's vector index, to wait until a rebuilt
// index answers for the namespace's new dimension.
// params: ns, embedding
// returns: hits
// scope: namespace-wide: re-embedding covers every scope of the namespace
// FalkorDB answers an error while the index is UNDER CONSTRUCTION: the caller polls.
CALL db.idx.vector.queryNodes('Cue', 'embedding', 1, vecf32($embedding)) YIELD node
WHERE node.ns = $ns
RETURN count(node) AS hits
