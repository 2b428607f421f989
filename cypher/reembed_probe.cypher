// reembed_probe: one query against the native vector index, to wait until a rebuilt
// index answers for the namespace's new dimension.
// params: ns, embedding
// returns: hits
// scope: namespace-wide: re-embedding covers every scope of the namespace
// Neo4j blocks until a populating index is online; a wrong dimension is an error.
CALL db.index.vector.queryNodes('cue_embedding', 1, $embedding) YIELD node
WHERE node.ns = $ns
RETURN count(node) AS hits
