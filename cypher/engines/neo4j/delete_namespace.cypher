// delete_namespace (Neo4j): remove every node of one namespace and its edges, in
// transactions of `chunk` rows each.
// params: ns
// returns: deleted
// render: chunk 1..1000000
// scope: namespace-wide: removes the whole namespace
// A transaction's memory grows with the edges it deletes, and a node's degree grows
// with the memory: at 1M contents a year's tag has thousands of edges, and a chunk of
// 2,000 tags holding the ~220 years exceeded the transaction memory limit of a 2 GiB
// heap. So the edges go first, `chunk` to a transaction, each found by the node it
// leaves; then the nodes, bare by then, `chunk` to a transaction (DETACH only for an
// edge entering the namespace from outside, which no write makes). The edges are
// read by a relationship scan: expanding from the nodes instead makes the planner
// buffer every edge in the outer transaction before the first chunk (an Eager),
// which is the unbounded memory again. It does buffer the node scan (it follows a
// delete), which holds node references, not edges. An interrupted delete leaves a
// part of the namespace, which the next delete removes.
// Runs only as an auto-commit statement (the store's run, never inside a transaction).
MATCH ()-[r]->()
WHERE startNode(r).ns = $ns
CALL (r) {
  DELETE r
} IN TRANSACTIONS OF {{chunk}} ROWS
WITH count(*) AS edges
MATCH (n)
WHERE n.ns = $ns
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF {{chunk}} ROWS
RETURN count(*) AS deleted
