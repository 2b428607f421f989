// content_snapshot: every content the read view sees, for the flat baselines and
// passage seeding.
// params: ns, scopes, trust, as_of
// returns: id, key, title, text, embedding (the passage vector), trust
// The same view predicate as traverse.cypher: a forgotten, rejected, superseded or
// out-of-scope content is in no retrieval path, flat ones included.
MATCH (m:Content)
WHERE m.ns = $ns AND m.scope IN $scopes AND m.forgotten_at IS NULL
  AND m.recorded_at <= $as_of AND (m.superseded_at IS NULL OR m.superseded_at > $as_of)
  AND (CASE WHEN m.trust_since <= $as_of THEN m.trust
         ELSE m.trust_log[size([x IN m.trust_at WHERE x <= $as_of]) - 1] END) IN $trust
RETURN m.id AS id, m.key AS key, m.title AS title, m.text AS text, m.embedding AS embedding,
       CASE WHEN m.trust_since <= $as_of THEN m.trust
            ELSE m.trust_log[size([x IN m.trust_at WHERE x <= $as_of]) - 1] END AS trust
ORDER BY m.key
