// ingest_bulk: write one batch of a bulk load, into a namespace that held no cue, tag or
// content when the load began, in ONE statement (atomic, as ingest_batch).
// params: ns, scope, since, contents, tags, linked_tags, known_tags, promote, cues, linked_cues, known_cues, refs, cue_links, tag_links
// returns: version, tag_handles, cue_handles
// The same graph as ingest_batch writes for the same batch, with CREATE where nothing
// can match: a content (its key is new to the namespace and unique in the corpus,
// CorpusChecker) and its REFERENCES edges (their content is new), and each tag and cue
// the run sends for the first time (ingest_created), every node whole in its CREATE.
// Links recur across the batches of one load, so they are merged as ingest_batch merges
// them (ingest_links). Nothing can match only while no other write lands in the
// namespace: each batch bumps its version once, so the batch writes only if the
// namespace is still at $since, the version the batches before it left; otherwise the
// statement returns no row and the load stops before this batch writes anything. A
// bulk load supersedes nothing and names no dependency. A re-run after a load stopped
// midway finds the namespace not empty and goes through ingest_batch, which merges onto
// what this one wrote.
MATCH (at:MemorySpace)
WHERE at.ns = $ns AND coalesce(at.version, 0) = $since
WITH at
{{> bump space}}
{{> ingest_known space}}
WITH space, known_tags, known_cues, space.version AS v
CALL {
  WITH v
  UNWIND range(0, size($contents) - 1) AS i
  WITH $contents[i] AS rec, i, v
  CREATE (m:Content {ns: $ns, scope: $scope, key: rec.key,
                     embedding: {{> vector rec.embedding}}, {{> content_created rec}}})
  WITH m, i ORDER BY i
  RETURN collect(m) AS ms
}
{{> ingest_created v}}
WITH v, ms, new_tags + old_tags + known_tags AS ts,
     new_cues + old_cues + known_cues AS cs,
     [t IN new_tags | {{> handle t}}] AS tag_handles, [c IN new_cues | {{> handle c}}] AS cue_handles
{{> ingest_promoted ts}}
CALL {
  WITH ms, ts
  UNWIND range(0, size($refs.tag) - 1) AS i
  WITH ts[$refs.tag[i]] AS t, ms[$refs.content[i]] AS m, $refs.weight[i] AS weight
  CREATE (t)-[r:REFERENCES {weight: weight}]->(m)
  RETURN count(r) AS referenced
}
{{> ingest_links cs}}
RETURN v AS version, tag_handles, cue_handles
