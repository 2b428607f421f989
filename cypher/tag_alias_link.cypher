// tag_alias_link: link tags that name the same thing, both ways, with their similarity.
// params: ns, scope, links
// returns: linked
// links {src, dst, similarity}: tag names of the scope (parallel columns). The edge is
// a LINKED_TO whose `alias` is the similarity of the two names' embeddings (1.0 for
// spelling variants). An alias edge of its own has no weight and no rank: the walk
// takes it when `alias` reaches the traversal's aliasThreshold, with the aliasWeight
// gene as its weight, and it takes no co-occurrence edge's fanout slot. Where the two
// tags already co-occur, the co-occurrence edge carries the alias too.
UNWIND range(0, size($links.src) - 1) AS i
WITH $links.src[i] AS src, $links.dst[i] AS dst, $links.similarity[i] AS similarity
MATCH (a:Tag {scope: $scope, name: src})
WHERE a.ns = $ns
MATCH (b:Tag {scope: $scope, name: dst})
WHERE b.ns = $ns
MERGE (a)-[l:LINKED_TO]->(b)
SET l.alias = similarity
RETURN count(l) AS linked
