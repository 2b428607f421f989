// cue_snapshot: every cue of the readable scopes, for the in-process HNSW and sparse indexes.
// params: ns, scopes
// returns: id, text, embedding
MATCH (c:Cue)
WHERE c.ns = $ns AND c.scope IN $scopes
RETURN c.id AS id, c.text AS text, c.embedding AS embedding
ORDER BY c.text, c.id
