// cue_vector_search: entry cues from the database's own vector index.
// params: ns, scopes, k, embedding
// returns: id, text, raw_score
// The index is shared by every namespace, so k is oversampled by the caller
// and the namespace predicate applied here.
CALL db.index.vector.queryNodes('cue_embedding', $k, $embedding) YIELD node, score
WHERE node.ns = $ns AND node.scope IN $scopes
RETURN node.id AS id, node.text AS text, score AS raw_score
ORDER BY raw_score DESC, text ASC
