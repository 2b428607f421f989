// fragment: ingest_linked()
// params: ns, scope, linked_tags, linked_cues
// The tags ($linked_tags) and cues ($linked_cues) an earlier batch of the same ingest sent
// whole, named by this batch's edges and only looked up here (ingest_names,
// ingest_created): the batch just before this one, whose handles were not back when this
// one was built (the others are found by handle, ingest_known). Binds old_tags and
// old_cues, each collected in list order.
CALL {
  UNWIND range(0, size($linked_tags) - 1) AS i
  WITH $linked_tags[i] AS name, i
  MERGE (t:Tag {ns: $ns, scope: $scope, name: name})
  WITH t, i ORDER BY i
  RETURN collect(t) AS old_tags
}
CALL {
  UNWIND range(0, size($linked_cues) - 1) AS i
  WITH $linked_cues[i] AS text, i
  MERGE (c:Cue {ns: $ns, scope: $scope, text: text})
  WITH c, i ORDER BY i
  RETURN collect(c) AS old_cues
}
