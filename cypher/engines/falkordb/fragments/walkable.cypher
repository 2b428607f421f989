// fragment: walkable(e)
// params: fanout, ns, scopes
// FalkorDB checks a predicate on the variable-length alias itself per edge while it
// expands (no Filter after the whole pattern), endNode(e) included: the edge's target
// is checked before the walk goes on from it. `all(... IN relationships(p) ...)` would
// filter only after every path was built. Other engines reject this form (e is a list).
e.rank <= $fanout AND endNode(e).ns = $ns AND endNode(e).scope IN $scopes
