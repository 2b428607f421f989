// bridge_contents: the contents that seed contents mention by title.
// params: ns, seeds
// returns: seed_id, content_id
// seeds: list of content ids. A seed's primary tag (REFERENCES weight 1.0) links
// (LINKED_TO) to a tag the seed's text mentions (the seed REFERENCES it too),
// and that tag is the primary tag of the bridged content: the literal
// (Content)<-(Tag)-[:LINKED_TO]->(Tag)-[:REFERENCES]->(Content) hop of a
// bridge question. Backward links (passages mentioning the seed) are not walked.
UNWIND $seeds AS seed_id
MATCH (s:Content {id: seed_id})
WITH s WHERE s.ns = $ns
MATCH (a:Tag)-[r1:REFERENCES]->(s)
WHERE a.ns = $ns AND r1.weight >= 1.0
MATCH (a)-[:LINKED_TO]->(b:Tag)-[:REFERENCES]->(s)
WHERE b.ns = $ns
MATCH (b)-[r2:REFERENCES]->(m:Content)
WHERE m.ns = $ns AND r2.weight >= 1.0 AND m <> s
RETURN DISTINCT s.id AS seed_id, m.id AS content_id
