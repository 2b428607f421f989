// ingest_batch: upsert one batch of contents, tags, cues and edges in ONE statement,
// so a batch is atomic on every engine (FalkorDB has no multi-statement transactions).
// params: ns, scope, contents, tags, linked_tags, known_tags, promote, cues, linked_cues, known_cues, refs, cue_links, tag_links, supersedes, depends
// returns: version, tag_handles, cue_handles
// Nodes are merged on their natural key within the scope (Content.key, Tag.name,
// Cue.text) and keep the random id given on first creation, so re-ingesting the
// same batch adds nothing. Each node is looked up once: the edges name their ends
// by position in the node lists, so an edge costs no index lookup. An edge list is
// a map of parallel columns (cheap to send): refs {tag, content, weight} (tag in
// $tags, then $linked_tags and $known_tags: tags an earlier batch of the run sent,
// looked up by name or found by handle), cue_links {cue, tag, weight} (cue in $cues,
// then $linked_cues and $known_cues, likewise), tag_links {src, dst, weight} (both
// among the tags). The batch returns the handles of the tags and cues it sent whole.
// A content record carries its whole provenance: hash, principal, trust, lineage,
// valid time and record time, and its seal (an HMAC with the audit key, checked by
// `audit verify`). Every trust change is
// logged (trust_at, trust_log: parallel lists; trust_since: the last change), so a
// read at an earlier record time sees the trust state the memory had then.
// supersedes: [{new, old, at}] closes the old version's record time and links
// (new)-[:SUPERSEDES]->(old) in the same statement as the new version is written,
// so a correction is never half applied; the old version's references lose their
// current-view ranks in the same statement too (rank_references). depends: [{src, dst}]
// content keys/ids. The namespace version is bumped, and every content and cue created
// (and every version superseded) is stamped with it (v).
// The tags, cues and links are written by ingest_names and by fragments ingest_bulk
// shares (ingest_linked, ingest_promoted, ingest_links). Each node list is merged in a
// CALL whose aggregate answers one row even for an empty list (so no list ends the
// statement early), collected in list order: MERGE may emit its rows in another order
// (FalkorDB does), hence the ORDER BY position.
// A tag's `primary` says whether some content has it as its primary tag (a REFERENCES
// edge of weight 1.0), so the bridge walk passes over tags that are no content's
// primary (years, places) without reading their edges. It only ever turns true;
// a tag written before it existed has none (unknown), and stays so until a batch
// makes it primary (null OR false is null).
// A tag's name keys (akey, tail: mragent/core/aliases.py) are what entity
// resolution looks it up by; set by the first batch of every write naming the tag, so
// a tag written before they existed gets them the next time a write names it.
// Each merge key is bound by WITH first: FalkorDB looks a key given as an expression
// (a list element) up through the namespace's index, a scan of the whole namespace.
// A content gets its passage embedding with its text; one created earlier without
// one (an imported version, written whole by memory_restore) gets it here, stamped with
// the version so readers load it from the change feed.
{{> bump space}}
{{> ingest_known space}}
WITH space, known_tags, known_cues, space.version AS v
CALL {
  WITH v
  UNWIND range(0, size($contents) - 1) AS i
  WITH $contents[i] AS rec, i, v
  MERGE (m:Content {ns: $ns, scope: $scope, key: rec.key})
  ON CREATE SET m += { {{> content_created rec}} }
  SET m.v = CASE WHEN m.embedding IS NULL AND rec.embedding IS NOT NULL THEN v ELSE m.v END
  SET m.embedding = coalesce(m.embedding, {{> vector rec.embedding}})
  WITH m, i ORDER BY i
  RETURN collect(m) AS ms
}
{{> ingest_names v}}
WITH space, v, ms, new_tags + old_tags + known_tags AS ts,
     new_cues + old_cues + known_cues AS cs,
     [t IN new_tags | {{> handle t}}] AS tag_handles, [c IN new_cues | {{> handle c}}] AS cue_handles
{{> ingest_promoted ts}}
CALL {
  WITH ms, ts
  UNWIND range(0, size($refs.tag) - 1) AS i
  WITH ts[$refs.tag[i]] AS t, ms[$refs.content[i]] AS m, $refs.weight[i] AS weight
  MERGE (t)-[r:REFERENCES]->(m)
  SET r.weight = weight
  RETURN count(r) AS referenced
}
{{> ingest_links cs}}
WITH space, v, tag_handles, cue_handles
FOREACH (rec IN $supersedes |
  MERGE (n:Content {ns: $ns, scope: $scope, key: rec.new})
  MERGE (o:Content {ns: $ns, scope: $scope, id: rec.old})
  SET o.superseded_at = rec.at, o.v = v
  MERGE (n)-[:SUPERSEDES]->(o))
FOREACH (rec IN $depends |
  MERGE (s:Content {ns: $ns, scope: $scope, key: rec.src})
  MERGE (d:Content {ns: $ns, scope: $scope, id: rec.dst})
  MERGE (s)-[:DEPENDS_ON]->(d))
WITH space, v, tag_handles, cue_handles
CALL {
  WITH v
  UNWIND [rec IN $supersedes | rec.old] AS old
  MATCH (o:Content {ns: $ns, scope: $scope, id: old})
  MATCH (t:Tag {ns: $ns, scope: $scope})-[:REFERENCES]->(o)
  WITH DISTINCT t
  MATCH (t)-[r:REFERENCES]->(m:Content {ns: $ns, scope: $scope})
  WITH t, r, m ORDER BY r.weight DESC, m.key ASC
  WITH t, collect(r) AS refs, collect(m) AS ms
  {{> rank_references}}
  RETURN count(r) AS reranked
}
RETURN v AS version, tag_handles, cue_handles
