// tag_alias_people: the people of a scope with one of the given surnames, at most $cap each.
// params: ns, scope, tails, cap
// returns: name
// A one-word tag is compared with the people of its surname only when they are few
// (mragent/core/aliases.py, MAX_LONGER): $cap one more than that tells "few" from
// "many" without sending every Smith of the namespace back for each write.
MATCH (t:Tag {scope: $scope})
WHERE t.tail IN $tails AND t.ns = $ns
WITH t.tail AS tail, collect(t.name) AS names
UNWIND names[..$cap] AS name
RETURN name
