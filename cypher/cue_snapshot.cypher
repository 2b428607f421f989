// cue_snapshot: the cues of the read view, for the in-process HNSW and sparse indexes.
// params: ns, scopes, trust, as_of
// returns: id, text, embedding
// A cue is in the view when one of its tags references a content the view sees (the
// traverse.cypher predicate): a cue only a forgotten, rejected, superseded, pending
// or out-of-scope memory gave rise to would otherwise still be an entry point and
// show that memory's words.
MATCH (c:Cue)-[:LINKED_TO]->(t:Tag)-[:REFERENCES]->(m:Content)
WHERE c.ns = $ns AND c.scope IN $scopes AND t.scope IN $scopes
  AND m.ns = $ns AND m.scope IN $scopes AND m.forgotten_at IS NULL
  AND m.recorded_at <= $as_of AND (m.superseded_at IS NULL OR m.superseded_at > $as_of)
  AND (CASE WHEN m.trust_since <= $as_of THEN m.trust
         ELSE m.trust_log[size([x IN m.trust_at WHERE x <= $as_of]) - 1] END) IN $trust
WITH DISTINCT c
RETURN c.id AS id, c.text AS text, c.embedding AS embedding
ORDER BY c.text, c.id
