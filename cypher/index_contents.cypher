// index_contents: one page of the contents of some scopes stamped after version $since,
// for a reader's passage index (the change feed; $since -1: every content).
// params: ns, scopes, since, after, limit
// returns: id, key, title, text, scope, forgotten, recorded_at, superseded_at, trust,
//   trust_since, trust_at, trust_log, embedding, v
// Text is read to index it (term counts), never kept by the reader; the passage
// embedding enters its HNSW index. A forgotten content's text and embedding are not
// sent: the reader only drops it.
MATCH (m:Content)
WHERE m.ns = $ns AND m.scope IN $scopes AND m.v > $since AND m.id > $after
RETURN m.id AS id, m.key AS key, m.title AS title,
       CASE WHEN m.forgotten_at IS NULL THEN m.text END AS text, m.scope AS scope,
       m.forgotten_at IS NOT NULL AS forgotten, m.recorded_at AS recorded_at,
       m.superseded_at AS superseded_at, m.trust AS trust, m.trust_since AS trust_since,
       m.trust_at AS trust_at, m.trust_log AS trust_log,
       CASE WHEN m.forgotten_at IS NULL THEN m.embedding END AS embedding, m.v AS v
ORDER BY id
LIMIT $limit
