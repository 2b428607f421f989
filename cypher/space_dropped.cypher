// space_dropped: ids of the cues physically deleted after version $since.
// params: ns, since
// returns: ids
// scope: namespace-wide: the change feed covers every scope; readers filter on theirs
MATCH (s:MemorySpace)
WHERE s.ns = $ns
WITH coalesce(s.dropped_ids, []) AS ids, coalesce(s.dropped_v, []) AS vs
RETURN [i IN range(0, size(ids) - 1) WHERE vs[i] > $since | ids[i]] AS ids
