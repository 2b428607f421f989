// cue_vector_search: entry cues from Memgraph's vector index.
// params: ns, scopes, k, embedding
// returns: id, text, raw_score
CALL vector_search.search('cue_embedding', $k, $embedding) YIELD node, similarity
WITH node, similarity WHERE node.ns = $ns AND node.scope IN $scopes
RETURN node.id AS id, node.text AS text, similarity AS raw_score
ORDER BY raw_score DESC, text ASC
