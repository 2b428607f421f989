// cue_snapshot: every cue of a namespace, for the in-process HNSW and sparse indexes.
// params: ns
// returns: id, text, embedding
MATCH (c:Cue)
WHERE c.ns = $ns
RETURN c.id AS id, c.text AS text, c.embedding AS embedding
ORDER BY c.text
