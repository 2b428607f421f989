// reembed_page: the next page of cues (by id, after a cursor) not yet embedded by the target.
// params: ns, target, after, limit
// returns: id, text
// scope: namespace-wide: re-embedding covers every scope of the namespace
// Keyset paging on the random id: stable while vectors are rewritten, and a run resumes
// from the cursor stored on the MemorySpace. The embedder filter makes a sweep from ''
// find only cues that were missed (e.g. written while the namespace was migrating).
MATCH (c:Cue)
WHERE c.ns = $ns AND c.id > $after AND (c.embedder IS NULL OR c.embedder <> $target)
RETURN c.id AS id, c.text AS text
ORDER BY id
LIMIT $limit
