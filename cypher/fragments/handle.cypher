// fragment: handle(x)
// params:
// The engine's own identifier of node x, valid while x lives: matching a node by its
// handle is a seek, not an index lookup (ingest_known). Neo4j: the element id.
elementId(x)
