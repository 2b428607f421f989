// reembed_count: cues and contents of a namespace, and how many still lack a vector from
// the target.
// params: ns, target
// returns: cues, pending, contents, contents_pending, unembedded
// scope: namespace-wide: re-embedding covers every scope of the namespace
// Tombstones are not counted: a forgotten content is in no retrieval path, and a
// purged one must stay without a vector of its erased text. unembedded: contents
// written before contents had passage embeddings (a re-embedding to the same
// embedder gives them one).
MATCH (c:Cue)
WHERE c.ns = $ns
WITH count(c) AS cues, sum(CASE WHEN c.embedder = $target THEN 0 ELSE 1 END) AS pending
OPTIONAL MATCH (m:Content)
WHERE m.ns = $ns AND m.forgotten_at IS NULL
RETURN cues, pending, count(m) AS contents,
       sum(CASE WHEN m IS NULL OR m.embedder = $target THEN 0 ELSE 1 END) AS contents_pending,
       sum(CASE WHEN m IS NOT NULL AND m.embedding IS NULL THEN 1 ELSE 0 END) AS unembedded
