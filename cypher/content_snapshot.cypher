// content_snapshot: every content the read view sees, for the flat baselines.
// params: ns, scopes, trust, as_of
// returns: id, key, title, text, embedding (the passage vector), trust
// A copy of the whole view: the flat baselines (bench, the negative evaluation) rank
// it; the reader never takes one (its indexes follow the change feed). Forgotten,
// rejected, superseded and out-of-scope contents are in no retrieval path, flat ones
// included (the visible fragment).
MATCH (m:Content)
WHERE {{> visible m}}
RETURN m.id AS id, m.key AS key, m.title AS title, m.text AS text, m.embedding AS embedding,
       {{> trust_at m}} AS trust
ORDER BY m.key
