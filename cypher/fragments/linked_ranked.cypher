// fragment: linked_ranked(e)
// params: fanout
// Every LINKED_TO edge of the variable-length list e is among its source's $fanout
// strongest. Neo4j plans this inside the expansion (it prunes while expanding).
all(link IN e WHERE link.rank <= $fanout)
