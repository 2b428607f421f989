// delete_namespace (Neo4j): remove every node of one namespace (and its edges), in
// transactions of `chunk` nodes each.
// params: ns
// returns: deleted
// render: chunk 1..1000000
// scope: namespace-wide: removes the whole namespace
// One transaction deleting a 100k-content namespace needs several GiB of transaction
// state; chunks keep it bounded. An interrupted delete leaves a part of the namespace,
// which the next delete removes.
// Runs only as an auto-commit statement (the store's run, never inside a transaction).
MATCH (n)
WHERE n.ns = $ns
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF {{chunk}} ROWS
RETURN count(*) AS deleted
