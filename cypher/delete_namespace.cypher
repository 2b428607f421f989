// delete_namespace: remove every node of one namespace (and its edges).
// params: ns
// returns: deleted
MATCH (n)
WHERE n.ns = $ns
DETACH DELETE n
RETURN count(*) AS deleted
