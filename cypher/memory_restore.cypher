// memory_restore: write imported memory versions with their whole stored state.
// params: ns, scope, records
// returns: id, version
// `records` are MemoryRecord rows with their `seal` and `fhash` (the forget key of
// the text, null once purged) (audit key HMAC, made by the
// importer for the target namespace). Each version is merged on its id within the
// scope and created with every property at once, lifecycle included
// (superseded_at, forgotten_at, forget_reason, forgotten_by, purged_at, reviews), before import
// links any tag to it: a version is never reachable with half its state, even on
// FalkorDB where each statement commits alone. Tombstones get no REFERENCES edge
// and no cue, so they stay out of every retrieval path. A version that already
// exists is left as it is. Edges: memory_restore_edges. A version created is stamped
// with the new namespace version (v).
{{> bump space}}
WITH space
UNWIND $records AS rec
MERGE (m:Content {ns: $ns, scope: $scope, id: rec.id})
ON CREATE SET m.key = rec.key, m.text = rec.text, m.title = rec.title,
  m.source = rec.source, m.hash = rec.hash, m.fhash = rec.fhash, m.principal = rec.principal,
  m.trust = rec.trust, m.lineage = rec.lineage, m.recorded_at = rec.recorded_at,
  m.superseded_at = rec.superseded_at, m.valid_from = rec.valid_from,
  m.valid_to = rec.valid_to, m.forgotten_at = rec.forgotten_at,
  m.forget_reason = rec.forget_reason, m.forgotten_by = rec.forgotten_by,
  m.forget_reviewed_by = rec.forget_reviewed_by,
  m.forget_reviewed_at = rec.forget_reviewed_at, m.purged_at = rec.purged_at,
  m.reviewed_by = rec.reviewed_by, m.reviewed_at = rec.reviewed_at,
  m.given_tags = rec.given_tags, m.given_cues = rec.given_cues,
  m.trust_at = rec.trust_at, m.trust_log = rec.trust_log, m.trust_since = rec.trust_at[-1],
  m.seal = rec.seal, m.v = space.version
RETURN m.id AS id, space.version AS version
