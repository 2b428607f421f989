// fragment: ingest_names(v)
// params: ns, scope, tags, linked_tags, cues, linked_cues
// An ingest batch's tags and cues merged on their natural keys within the scope, `v`
// being the write's namespace version: binds new_tags (the tags of $tags: those this run
// sends for the first time, their properties set), new_cues (the cues of $cues, embedded
// and stamped when created), and old_tags and old_cues (ingest_linked), each collected in
// list order. A name this run sends may be in the namespace already (an earlier write),
// so this path merges; a bulk load into an empty namespace creates (ingest_created).
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
  WITH v
  UNWIND range(0, size($cues) - 1) AS i
  WITH $cues[i] AS rec, i, v
  MERGE (c:Cue {ns: $ns, scope: $scope, text: rec.text})
  ON CREATE SET c.id = rec.id, c.embedding = {{> vector rec.embedding}}, c.v = v
  WITH c, i ORDER BY i
  RETURN collect(c) AS new_cues
}
{{> ingest_linked}}
