// fragment: walkable(e)
// params: fanout, link_fanout, alias_min, ns, scopes
// Every LINKED_TO edge of the variable-length list e is among its source's $fanout
// strongest ($link_fanout for an edge between two tags), or an alias of similarity at
// least $alias_min (tag_alias_link), and leads to a node of the namespace in one of
// $scopes. Neo4j plans this inside the expansion (it prunes while expanding).
all(link IN e WHERE (link.rank <= CASE WHEN startNode(link):Cue THEN $fanout ELSE $link_fanout END
                     OR link.alias >= $alias_min)
                    AND endNode(link).ns = $ns
                    AND endNode(link).scope IN $scopes)
