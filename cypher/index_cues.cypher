// index_cues: one page of the cues of some scopes stamped after version $since and at
// most $upto, for a reader's dense and sparse cue indexes (the change feed; $since -1:
// every cue).
// params: ns, scopes, since, upto, after, limit
// returns: id, text, scope, embedding, v
// A page lies in a window of versions ($since, $upto] (the v index finds exactly those
// nodes), keyset-paged on the random id within it (after: the last id of the previous
// page, '' first). The id is compared as an expression: given `x.id > $after`,
// FalkorDB answers it through the id index, a range over every node of the label in
// the database, on every page (3 s a page at a million contents).
// A reader indexes only the scopes it reads: no other scope's words reach its process.
MATCH (c:Cue)
WHERE c.ns = $ns AND c.v > $since AND c.v <= $upto AND c.scope IN $scopes
  AND toString(c.id) > $after
WITH c ORDER BY c.id LIMIT $limit
RETURN c.id AS id, c.text AS text, c.scope AS scope, c.embedding AS embedding, c.v AS v
ORDER BY id
