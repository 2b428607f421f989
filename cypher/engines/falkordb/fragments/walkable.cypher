// fragment: walkable(e)
// params: fanout, link_fanout, alias_min, ns, scopes
// FalkorDB checks a predicate on the variable-length alias itself per edge while it
// expands (no Filter after the whole pattern), endNode(e) included: the edge's target
// is checked before the walk goes on from it. `all(... IN relationships(p) ...)` would
// filter only after every path was built. Other engines reject this form (e is a list).
(e.rank <= CASE WHEN startNode(e):Cue THEN $fanout ELSE $link_fanout END
 OR e.alias >= $alias_min) AND endNode(e).ns = $ns AND endNode(e).scope IN $scopes
