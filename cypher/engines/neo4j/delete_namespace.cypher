// delete_namespace (Neo4j): remove every node of one namespace (and its edges), in
// transactions of `chunk` nodes each.
// params: ns
// returns: deleted
// render: chunk 1..1000000
// scope: namespace-wide: removes the whole namespace
// One transaction deleting a 100k-content namespace needs several GiB of transaction
// state; chunks keep it bounded. A chunk's cost is its nodes' edges, and a keyword cue
// links to the primary tag of every content using its word (50k edges at 100k
// contents), so deleting such a cue whole exceeds the default transaction memory limit
// on its own. Contents go first, then tags: every edge then leaves with its
// low-degree end, a chunk's edges are bounded by its nodes' own degrees, and the cues
// are bare when their turn comes. Each label is read by its own scan, so no step waits
// for the one before to materialise its rows. An interrupted delete leaves a part of
// the namespace, which the next delete removes.
// Runs only as an auto-commit statement (the store's run, never inside a transaction).
MATCH (m:Content)
WHERE m.ns = $ns
CALL (m) {
  DETACH DELETE m
} IN TRANSACTIONS OF {{chunk}} ROWS
WITH count(*) AS contents
MATCH (t:Tag)
WHERE t.ns = $ns
CALL (t) {
  DETACH DELETE t
} IN TRANSACTIONS OF {{chunk}} ROWS
WITH contents, count(*) AS tags
MATCH (n)
WHERE n.ns = $ns
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF {{chunk}} ROWS
WITH contents, tags, count(*) AS rest
RETURN contents + tags + rest AS deleted
