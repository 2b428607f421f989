// ingest_bulk: write one batch of a bulk load, into a namespace that held no cue, tag or
// content when the load began, in ONE statement (atomic, as ingest_batch).
// params: ns, scope, contents, tags, linked_tags, known_tags, cues, linked_cues, known_cues, refs, cue_links, tag_links
// returns: version, tag_handles, cue_handles
// The same graph as ingest_batch writes for the same batch, with CREATE where nothing
// can match: a content (its key is new to the namespace and unique in the corpus,
// CorpusChecker) and its REFERENCES edges (their content is new). Tags, cues and links
// recur across the batches of one load, so they are merged as ingest_batch merges them
// (the ingest_names and ingest_links fragments). A bulk load supersedes nothing and
// names no dependency. A re-run after a load stopped midway finds the namespace not
// empty and goes through ingest_batch, which merges onto what this one wrote.
{{> bump space}}
{{> ingest_known space}}
WITH space, known_tags, known_cues, space.version AS v
CALL {
  WITH v
  UNWIND range(0, size($contents) - 1) AS i
  WITH $contents[i] AS rec, i, v
  CREATE (m:Content {ns: $ns, scope: $scope, key: rec.key})
  SET {{> content_created rec}}, m.embedding = {{> vector rec.embedding}}
  WITH m, i ORDER BY i
  RETURN collect(m) AS ms
}
{{> ingest_names v}}
WITH v, ms, new_tags + old_tags + known_tags AS ts,
     new_cues + old_cues + known_cues AS cs,
     [t IN new_tags | {{> handle t}}] AS tag_handles, [c IN new_cues | {{> handle c}}] AS cue_handles
CALL {
  WITH ms, ts
  UNWIND range(0, size($refs.tag) - 1) AS i
  WITH ts[$refs.tag[i]] AS t, ms[$refs.content[i]] AS m, $refs.weight[i] AS weight
  CREATE (t)-[r:REFERENCES {weight: weight}]->(m)
  RETURN count(r) AS referenced
}
{{> ingest_links cs}}
RETURN v AS version, tag_handles, cue_handles
