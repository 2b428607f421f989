// reembed_content_page: the next page of contents (by id, after a cursor) not yet embedded
// by the target, with the text their passage embedding is computed from.
// params: ns, target, after, limit
// returns: id, title, text
// scope: namespace-wide: re-embedding covers every scope of the namespace
// As reembed_page, for contents. Tombstones are skipped (see reembed_count).
MATCH (m:Content)
WHERE m.ns = $ns AND m.id > $after AND m.forgotten_at IS NULL
  AND (m.embedder IS NULL OR m.embedder <> $target)
RETURN m.id AS id, m.title AS title, m.text AS text
ORDER BY id
LIMIT $limit
