// ingest_batch: upsert one batch of contents, tags, cues and edges in ONE statement,
// so a batch is atomic on every engine (FalkorDB has no multi-statement transactions).
// params: ns, scope, contents, tags, cues, refs, cue_links, tag_links, supersedes, depends
// returns: version
// Nodes are merged on their natural key within the scope (Content.key, Tag.name,
// Cue.text) and keep the random id given on first creation, so re-ingesting the
// same batch adds nothing. A content record carries its whole provenance: hash,
// principal, trust, lineage, valid time and record time, and its seal (an HMAC
// with the audit key, checked by `audit verify`). Every trust change is
// logged (trust_at, trust_log: parallel lists; trust_since: the last change), so a
// read at an earlier record time sees the trust state the memory had then.
// supersedes: [{new, old, at}] closes the old version's record time and links
// (new)-[:SUPERSEDES]->(old) in the same statement as the new version is written,
// so a correction is never half applied; the old version's references lose their
// current-view ranks in the same statement too (rank_references). depends: [{src, dst}]
// content keys/ids. The namespace version is bumped, and every content and cue created
// (and every version superseded) is stamped with it (v).
// FOREACH rather than UNWIND: an empty list must not end the statement early.
// Every tag, cue and content an edge names is in the same batch's node lists.
// A content gets its passage embedding with its text; one created earlier without
// one (an imported version, written whole by memory_restore) gets it here, stamped with
// the version so readers load it from the change feed.
{{> bump space}}
WITH space, space.version AS v
FOREACH (rec IN $contents |
  MERGE (m:Content {ns: $ns, scope: $scope, key: rec.key})
  ON CREATE SET m.id = rec.id, m.text = rec.text, m.title = rec.title,
    m.source = rec.source, m.hash = rec.hash, m.principal = rec.principal,
    m.trust = rec.trust, m.lineage = rec.lineage, m.recorded_at = rec.recorded_at,
    m.valid_from = rec.valid_from, m.valid_to = rec.valid_to,
    m.given_tags = rec.given_tags, m.given_cues = rec.given_cues,
    m.trust_at = [rec.recorded_at], m.trust_log = [rec.trust], m.trust_since = rec.recorded_at,
    m.seal = rec.seal, m.v = v
  SET m.v = CASE WHEN m.embedding IS NULL AND rec.embedding IS NOT NULL THEN v ELSE m.v END
  SET m.embedding = coalesce(m.embedding, {{> vector rec.embedding}}))
FOREACH (rec IN $tags |
  MERGE (t:Tag {ns: $ns, scope: $scope, name: rec.name})
  ON CREATE SET t.id = rec.id)
FOREACH (rec IN $cues |
  MERGE (c:Cue {ns: $ns, scope: $scope, text: rec.text})
  ON CREATE SET c.id = rec.id, c.embedding = {{> vector rec.embedding}}, c.v = v)
FOREACH (rec IN $refs |
  MERGE (t:Tag {ns: $ns, scope: $scope, name: rec.tag})
  MERGE (m:Content {ns: $ns, scope: $scope, key: rec.content})
  MERGE (t)-[r:REFERENCES]->(m)
  SET r.weight = rec.weight)
FOREACH (rec IN $cue_links |
  MERGE (c:Cue {ns: $ns, scope: $scope, text: rec.cue})
  MERGE (t:Tag {ns: $ns, scope: $scope, name: rec.tag})
  MERGE (c)-[l:LINKED_TO]->(t)
  SET l.weight = rec.weight)
FOREACH (rec IN $tag_links |
  MERGE (s:Tag {ns: $ns, scope: $scope, name: rec.src})
  MERGE (t:Tag {ns: $ns, scope: $scope, name: rec.dst})
  MERGE (s)-[l:LINKED_TO]->(t)
  SET l.weight = rec.weight)
FOREACH (rec IN $supersedes |
  MERGE (n:Content {ns: $ns, scope: $scope, key: rec.new})
  MERGE (o:Content {ns: $ns, scope: $scope, id: rec.old})
  SET o.superseded_at = rec.at, o.v = v
  MERGE (n)-[:SUPERSEDES]->(o))
FOREACH (rec IN $depends |
  MERGE (s:Content {ns: $ns, scope: $scope, key: rec.src})
  MERGE (d:Content {ns: $ns, scope: $scope, id: rec.dst})
  MERGE (s)-[:DEPENDS_ON]->(d))
WITH space, v
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
RETURN v AS version
