// bridge_contents: the contents that seed contents mention by title.
// params: ns, scopes, trust, as_of, seeds
// returns: seed_id, content_id
// seeds: list of content ids. A seed's primary tag (REFERENCES weight 1.0) links
// (LINKED_TO) to a tag the seed's text mentions (the seed REFERENCES it too),
// and that tag is the primary tag of the bridged content: the literal
// (Content)<-(Tag)-[:LINKED_TO]->(Tag)-[:REFERENCES]->(Content) hop of a
// bridge question. Backward links (passages mentioning the seed) are not walked.
UNWIND $seeds AS seed_id
MATCH (s:Content {id: seed_id})
WITH s WHERE s.ns = $ns AND s.scope IN $scopes
MATCH (a:Tag)-[r1:REFERENCES]->(s)
WHERE a.ns = $ns AND a.scope IN $scopes AND r1.weight >= 1.0
MATCH (a)-[:LINKED_TO]->(b:Tag)-[:REFERENCES]->(s)
WHERE b.ns = $ns AND b.scope IN $scopes
MATCH (b)-[r2:REFERENCES]->(m:Content)
WHERE r2.weight >= 1.0 AND m <> s
  AND m.ns = $ns AND m.scope IN $scopes AND m.forgotten_at IS NULL
  AND m.recorded_at <= $as_of AND (m.superseded_at IS NULL OR m.superseded_at > $as_of)
  AND (CASE WHEN m.trust_since <= $as_of THEN m.trust
         ELSE m.trust_log[size([x IN m.trust_at WHERE x <= $as_of]) - 1] END) IN $trust
RETURN DISTINCT s.id AS seed_id, m.id AS content_id
