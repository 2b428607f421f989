// fragment: ingest_known(space)
// params: ns, scope, known_tags, known_cues
// The tags and cues an earlier batch of the same run wrote and returned the handles of
// (ingest.py), found by handle: a seek, where a lookup by name through the index cost
// a fifth of a bulk batch's operator time. known_tags {handle, name} and known_cues
// {handle, text} are parallel columns. Binds known_tags and known_cues, collected in
// list order, beside `space` (the bumped MemorySpace). Each node found must still be
// the one named (label, namespace, scope, name): a node deleted since, its handle
// given to another, is not used. If any is missing the row ends here, before the
// batch writes anything, and the statement returns no row: the caller refuses to go
// on rather than link edges to the wrong nodes.
WITH space
CALL {
  UNWIND range(0, size($known_tags.handle) - 1) AS i
  WITH $known_tags.handle[i] AS h, $known_tags.name[i] AS name, i
  MATCH (t) WHERE {{> handle t}} = h
  WITH t, name, i WHERE t:Tag AND t.ns = $ns AND t.scope = $scope AND t.name = name
  WITH t, i ORDER BY i
  RETURN collect(t) AS known_tags
}
CALL {
  UNWIND range(0, size($known_cues.handle) - 1) AS i
  WITH $known_cues.handle[i] AS h, $known_cues.text[i] AS text, i
  MATCH (c) WHERE {{> handle c}} = h
  WITH c, text, i WHERE c:Cue AND c.ns = $ns AND c.scope = $scope AND c.text = text
  WITH c, i ORDER BY i
  RETURN collect(c) AS known_cues
}
WITH space, known_tags, known_cues
WHERE size(known_tags) = size($known_tags.handle)
  AND size(known_cues) = size($known_cues.handle)
