// fragment: ingest_names(v)
// params: ns, scope, tags, linked_tags, cues, linked_cues
// An ingest batch's tags and cues merged on their natural keys within the scope, `v`
// being the write's namespace version: binds new_tags (the tags of $tags, their
// properties set), old_tags (those of $linked_tags: names an earlier batch of the run
// sent with every property this one would set, only looked up; the batch before this
// one, whose handles were not back when this one was built, ingest_known), new_cues (the
// cues of $cues, embedded and stamped when created) and old_cues (those of $linked_cues,
// sent by an earlier batch), each collected in list order. Tags and cues recur across the
// batches of one load, so even a bulk load merges them; a tag looked up is not set
// again (merging and setting every tag was a third of a bulk batch's operator time).
CALL {
  UNWIND range(0, size($tags) - 1) AS i
  WITH $tags[i] AS rec, i
  MERGE (t:Tag {ns: $ns, scope: $scope, name: rec.name})
  ON CREATE SET t.id = rec.id, t.primary = rec.primary
  ON MATCH SET t.primary = t.primary OR rec.primary
  SET t.akey = rec.akey, t.tail = rec.tail
  WITH t, i ORDER BY i
  RETURN collect(t) AS new_tags
}
CALL {
  UNWIND range(0, size($linked_tags) - 1) AS i
  WITH $linked_tags[i] AS name, i
  MERGE (t:Tag {ns: $ns, scope: $scope, name: name})
  WITH t, i ORDER BY i
  RETURN collect(t) AS old_tags
}
CALL {
  WITH v
  UNWIND range(0, size($cues) - 1) AS i
  WITH $cues[i] AS rec, i, v
  MERGE (c:Cue {ns: $ns, scope: $scope, text: rec.text})
  ON CREATE SET c.id = rec.id, c.embedding = {{> vector rec.embedding}}, c.v = v
  WITH c, i ORDER BY i
  RETURN collect(c) AS new_cues
}
CALL {
  UNWIND range(0, size($linked_cues) - 1) AS i
  WITH $linked_cues[i] AS text, i
  MERGE (c:Cue {ns: $ns, scope: $scope, text: text})
  WITH c, i ORDER BY i
  RETURN collect(c) AS old_cues
}
