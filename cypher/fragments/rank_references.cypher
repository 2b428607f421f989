// fragment: rank_references()
// params:
// Number one tag's REFERENCES edges `refs` (strongest first: r.weight DESC, then the
// content key) whose contents are `ms` (same order), three ways, so a fanout slot is
// only ever taken by an edge the reader can use:
//   rank_all      every edge (reads at an earlier record time, --as-of);
//   rank          edges to contents that are current, not forgotten and accepted;
//   rank_pending  edges to contents that are current, not forgotten, accepted or pending.
// An edge outside a set has no rank in it (null), so it never takes a slot there.
// Binds r (each ranked edge); the including query aggregates.
WITH refs,
     [x IN ms | x.forgotten_at IS NULL AND x.superseded_at IS NULL
                AND x.trust = 'accepted'] AS accepted,
     [x IN ms | x.forgotten_at IS NULL AND x.superseded_at IS NULL
                AND x.trust IN ['accepted', 'pending']] AS readable
UNWIND range(0, size(refs) - 1) AS i
WITH refs[i] AS r, i, accepted, readable
SET r.rank_all = i + 1,
    r.rank = CASE WHEN accepted[i] THEN size([j IN range(0, i) WHERE accepted[j]]) END,
    r.rank_pending = CASE WHEN readable[i] THEN size([j IN range(0, i) WHERE readable[j]]) END
