// namespace_stats: node and edge counts of one namespace.
// params: ns
// returns: cues, tags, contents, links, refs
// scope: namespace-wide: counts every scope of the namespace
OPTIONAL MATCH (c:Cue) WHERE c.ns = $ns
WITH count(c) AS cues
OPTIONAL MATCH (t:Tag) WHERE t.ns = $ns
WITH cues, count(t) AS tags
OPTIONAL MATCH (m:Content) WHERE m.ns = $ns
WITH cues, tags, count(m) AS contents
OPTIONAL MATCH (s)-[l:LINKED_TO]->(t:Tag) WHERE s.ns = $ns AND t.ns = $ns
WITH cues, tags, contents, count(l) AS links
OPTIONAL MATCH (t:Tag)-[r:REFERENCES]->(m:Content) WHERE t.ns = $ns AND m.ns = $ns
RETURN cues, tags, contents, links, count(r) AS refs
