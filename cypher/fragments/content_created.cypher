// fragment: content_created(rec)
// params:
// The properties a new Content node `m` takes from its record `rec` (ingest_batch,
// ingest_bulk), `v` being the namespace version of the write: the text, its whole
// provenance and its seal; the trust log starts with the record's trust.
m.id = rec.id, m.text = rec.text, m.title = rec.title,
    m.source = rec.source, m.hash = rec.hash, m.fhash = rec.fhash, m.principal = rec.principal,
    m.trust = rec.trust, m.lineage = rec.lineage, m.recorded_at = rec.recorded_at,
    m.valid_from = rec.valid_from, m.valid_to = rec.valid_to,
    m.given_tags = rec.given_tags, m.given_cues = rec.given_cues,
    m.trust_at = [rec.recorded_at], m.trust_log = [rec.trust], m.trust_since = rec.recorded_at,
    m.seal = rec.seal, m.v = v
