// fragment: handle(x)
// params:
// The engine's own identifier of node x (FalkorDB: the integer node id; a deleted
// node's id is given to a later node, which ingest_known checks for).
id(x)
