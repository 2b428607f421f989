// tag_alias_candidates: the tags of a scope that share a folded name with a write's tags.
// params: ns, scope, keys
// returns: name
// keys: folded names and surnames (a tag with one of them is a spelling variant, or a
// one-word name that may be a surname). See mragent/core/aliases.py for the keys. One
// index lookup per key.
MATCH (t:Tag {scope: $scope})
WHERE t.akey IN $keys AND t.ns = $ns
RETURN t.name AS name
