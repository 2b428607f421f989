// fragment: handle(x)
// params:
// The engine's own identifier of node x (Memgraph: the integer node id).
id(x)
