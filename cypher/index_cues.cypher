// index_cues: one page of the cues of some scopes stamped after version $since, for a
// reader's dense and sparse cue indexes (the change feed; $since -1: every cue).
// params: ns, scopes, since, after, limit
// returns: id, text, scope, embedding, v
// Keyset paging on the random id (after: the last id of the previous page, '' first).
// A reader indexes only the scopes it reads: no other scope's words reach its process.
MATCH (c:Cue)
WHERE c.ns = $ns AND c.scope IN $scopes AND c.v > $since AND c.id > $after
RETURN c.id AS id, c.text AS text, c.scope AS scope, c.embedding AS embedding, c.v AS v
ORDER BY id
LIMIT $limit
