// delete_namespace: remove every node of one namespace (and its edges).
// params: ns
// returns: deleted
// scope: namespace-wide: removes the whole namespace
MATCH (n)
WHERE n.ns = $ns
DETACH DELETE n
RETURN count(*) AS deleted
