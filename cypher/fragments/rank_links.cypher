// fragment: rank_links(s)
// params:
// Number node s's outgoing LINKED_TO edges r (to tags t) 1..n, strongest first; ties
// break on the target tag's name so every engine ranks identically. An alias edge of
// its own (no weight: tag_alias_link) is not ranked: it takes no fanout slot. Binds r (each
// ranked edge); the including query aggregates.
WITH s, r, t WHERE r.weight IS NOT NULL
WITH s, r, t ORDER BY r.weight DESC, t.name ASC
WITH s, collect(r) AS links
UNWIND range(0, size(links) - 1) AS i
WITH links[i] AS r, i
SET r.rank = i + 1
