// cue_vector_search: entry cues from FalkorDB's vector index (score is a distance).
// params: ns, scopes, k, embedding
// returns: id, text, raw_score
CALL db.idx.vector.queryNodes('Cue', 'embedding', $k, vecf32($embedding)) YIELD node, score
WHERE node.ns = $ns AND node.scope IN $scopes
RETURN node.id AS id, node.text AS text, score AS raw_score
ORDER BY raw_score ASC, text ASC
