// tag_names: every tag name of a namespace, by scope.
// params: ns
// returns: scope, name
// scope: namespace-wide: a re-embedded namespace re-measures every alias of every scope
MATCH (t:Tag)
WHERE t.ns = $ns
RETURN t.scope AS scope, t.name AS name
ORDER BY scope, name
