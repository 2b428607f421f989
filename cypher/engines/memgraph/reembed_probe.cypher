// reembed_probe: one query against Memgraph's vector index, to wait until a rebuilt
// index answers for the namespace's new dimension.
// params: ns, embedding
// returns: hits
// scope: namespace-wide: re-embedding covers every scope of the namespace
CALL vector_search.search('cue_embedding', 1, $embedding) YIELD node
WITH node WHERE node.ns = $ns
RETURN count(node) AS hits
