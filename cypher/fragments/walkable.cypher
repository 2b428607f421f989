// fragment: walkable(e)
// params: fanout, ns, scopes
// Every LINKED_TO edge of the variable-length list e is among its source's $fanout
// strongest and leads to a node of the namespace in one of $scopes. Neo4j plans this
// inside the expansion (it prunes while expanding).
all(link IN e WHERE link.rank <= $fanout AND endNode(link).ns = $ns
                    AND endNode(link).scope IN $scopes)
