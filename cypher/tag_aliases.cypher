// tag_aliases: every alias edge of a namespace (entity resolution's links), one way each.
// params: ns
// returns: scope, src, dst, similarity, cooccur
// scope: namespace-wide: a report of the links entity resolution made, scope by scope
// Each pair is linked both ways; it is listed once (src before dst by name). cooccur:
// whether the two tags also co-occur (the edge has a co-occurrence weight too).
MATCH (a:Tag)-[l:LINKED_TO]->(b:Tag)
WHERE a.ns = $ns AND l.alias IS NOT NULL AND a.name < b.name
RETURN a.scope AS scope, a.name AS src, b.name AS dst, l.alias AS similarity,
       l.weight IS NOT NULL AS cooccur
ORDER BY scope, src, dst
