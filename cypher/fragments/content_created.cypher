// fragment: content_created(rec)
// params:
// The properties a new Content node takes from its record `rec` (ingest_batch,
// ingest_bulk), as the body of a map, `v` being the namespace version of the write: the
// text, its whole provenance and its seal; the trust log starts with the record's trust.
// A map, so a node created whole takes them in its CREATE: on FalkorDB every SET on a
// node of an indexed label indexes the node again, the same values or not.
id: rec.id, text: rec.text, title: rec.title,
    source: rec.source, hash: rec.hash, fhash: rec.fhash, principal: rec.principal,
    trust: rec.trust, lineage: rec.lineage, recorded_at: rec.recorded_at,
    valid_from: rec.valid_from, valid_to: rec.valid_to,
    given_tags: rec.given_tags, given_cues: rec.given_cues,
    trust_at: [rec.recorded_at], trust_log: [rec.trust], trust_since: rec.recorded_at,
    seal: rec.seal, v: v
