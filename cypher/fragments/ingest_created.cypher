// fragment: ingest_created(v)
// params: ns, scope, tags, linked_tags, cues, linked_cues
// ingest_names for a bulk load (ingest_bulk): the same bindings, each tag of $tags and
// cue of $cues created whole, with every property in its CREATE. Nothing can match them:
// the namespace held no node when the load began, no other write has landed since
// (ingest_bulk checks the namespace version), and a run sends each name whole once
// (ingest.py, Sent). Whole, because on FalkorDB every SET on a node of an indexed label
// indexes the node again, and a MERGE ... ON CREATE SET indexes it twice.
CALL {
  UNWIND range(0, size($tags) - 1) AS i
  WITH $tags[i] AS rec, i
  CREATE (t:Tag {ns: $ns, scope: $scope, name: rec.name, id: rec.id, primary: rec.primary,
                 akey: rec.akey, tail: rec.tail})
  WITH t, i ORDER BY i
  RETURN collect(t) AS new_tags
}
CALL {
  WITH v
  UNWIND range(0, size($cues) - 1) AS i
  WITH $cues[i] AS rec, i, v
  CREATE (c:Cue {ns: $ns, scope: $scope, text: rec.text, id: rec.id,
                 embedding: {{> vector rec.embedding}}, v: v})
  WITH c, i ORDER BY i
  RETURN collect(c) AS new_cues
}
{{> ingest_linked}}
