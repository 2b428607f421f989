// trace_bridges: the tags on the bridge hops that reached contents without a cue path.
// params: ns, scopes, seeds, targets
// returns: ids
// Read by `mragent explain` only. seeds: the content ids the bridge walk of
// traverse.cypher started from; targets: the contents it reached that no cue path
// reached (already read through the reader's view). The pattern is the walk's: the
// seed's primary tag (REFERENCES weight 1.0) links to a tag the seed mentions, whose
// primary content is the target. ids: [seed, seed's tag, mentioned tag, target].
UNWIND $seeds AS seed
MATCH (s:Content {id: seed})
WITH s WHERE s.ns = $ns AND s.scope IN $scopes
MATCH (a:Tag)-[r1:REFERENCES]->(s)
WHERE a.ns = $ns AND a.scope IN $scopes AND r1.weight >= 1.0
MATCH (a)-[:LINKED_TO]->(b:Tag)-[:REFERENCES]->(s)
WHERE b.ns = $ns AND b.scope IN $scopes
MATCH (b)-[r2:REFERENCES]->(m:Content)
WHERE r2.weight >= 1.0 AND m.id IN $targets AND m <> s
  AND m.ns = $ns AND m.scope IN $scopes
RETURN [s.id, a.id, b.id, m.id] AS ids
ORDER BY ids
