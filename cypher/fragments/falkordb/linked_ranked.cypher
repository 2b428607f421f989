// fragment: linked_ranked(e)
// params: fanout
// FalkorDB checks a predicate on the variable-length alias itself per edge while it
// expands (no Filter after the whole pattern); `all(... IN relationships(p) ...)` would
// filter only after every path was built. Other engines reject this form (e is a list).
e.rank <= $fanout
