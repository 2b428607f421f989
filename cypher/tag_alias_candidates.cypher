// tag_alias_candidates: the tags of a scope that share a name key with a write's tags.
// params: ns, scope, keys, tails
// returns: name
// keys: folded names (a tag with one of them is a spelling variant, or a one-word name
// that may be a surname); tails: surnames (a tag of a person with one of them may be
// the full name of a one-word tag). See mragent/core/aliases.py for the keys. Each
// branch is one index lookup.
MATCH (t:Tag {scope: $scope})
WHERE t.akey IN $keys AND t.ns = $ns
RETURN t.name AS name
UNION
MATCH (t:Tag {scope: $scope})
WHERE t.tail IN $tails AND t.ns = $ns
RETURN t.name AS name
