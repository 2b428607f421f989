// rank_references: number each tag's outgoing REFERENCES edges, strongest first.
// params: ns
// returns: ranked
// scope: namespace-wide: edges never cross scopes (both ends merge within one), so ranking per node is scope-safe
// Each tag also records how many contents it references (refs): a round of
// reconstruction hands on only specific tags (see reconstruct.py).
// Ties break on the content key so every engine ranks identically. Like LINKED_TO,
// a tag expands only its `tagFanout` strongest references: a hub tag mentioned by
// hundreds of passages would otherwise multiply every path that crosses it. Three
// ranks, one per kind of read view (rank_references fragment): only references to
// contents a reader may see take its fanout slots.
MATCH (t:Tag)-[r:REFERENCES]->(m:Content)
WHERE t.ns = $ns AND m.ns = $ns
WITH t, r, m ORDER BY r.weight DESC, m.key ASC
WITH t, collect(r) AS refs, collect(m) AS ms
SET t.refs = size(refs)
{{> rank_references}}
RETURN count(r) AS ranked
