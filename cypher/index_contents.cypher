// index_contents: one page of the contents of some scopes stamped after version $since
// and at most $upto, for a reader's passage index (the change feed; $since -1: every
// content).
// params: ns, scopes, since, upto, after, limit, vectors
// returns: id, key, title, text, scope, forgotten, recorded_at, superseded_at, trust,
//   trust_since, trust_at, trust_log, embedding, v
// Text is read to index it (term counts), never kept by the reader; the passage
// embedding enters its HNSW index. A forgotten content's text and embedding are not
// sent: the reader only drops it. Nor is any embedding unless $vectors: a reader
// of a namespace stamped with a lexical embedder keeps no passage vectors (at a million
// contents, parsing them was two thirds of a cold reader's feed).
// A page lies in a window of versions ($since, $upto] (the v index finds exactly those
// nodes), keyset-paged on the random id within it (after: the last id of the previous
// page, '' first). The id is compared as an expression: given `x.id > $after`,
// FalkorDB answers it through the id index, a range over every node of the label in
// the database, on every page (3 s a page at a million contents).
MATCH (m:Content)
WHERE m.ns = $ns AND m.v > $since AND m.v <= $upto AND m.scope IN $scopes
  AND toString(m.id) > $after
WITH m ORDER BY m.id LIMIT $limit
RETURN m.id AS id, m.key AS key, m.title AS title,
       CASE WHEN m.forgotten_at IS NULL THEN m.text END AS text, m.scope AS scope,
       m.forgotten_at IS NOT NULL AS forgotten, m.recorded_at AS recorded_at,
       m.superseded_at AS superseded_at, m.trust AS trust, m.trust_since AS trust_since,
       m.trust_at AS trust_at, m.trust_log AS trust_log,
       CASE WHEN $vectors AND m.forgotten_at IS NULL THEN m.embedding END AS embedding,
       m.v AS v
ORDER BY id
