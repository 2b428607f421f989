// cue_texts: every cue text of a namespace, by scope.
// params: ns
// returns: scope, text
// scope: namespace-wide: an import or a migration re-ranks every cue of every scope
MATCH (c:Cue)
WHERE c.ns = $ns
RETURN c.scope AS scope, c.text AS text
ORDER BY scope, text
