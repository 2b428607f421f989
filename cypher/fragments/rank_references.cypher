// fragment: rank_references()
// params:
// Number one tag's REFERENCES edges `refs` (strongest first: r.weight DESC, then the
// content key) whose contents are `ms` (same order), three ways, so a fanout slot is
// only ever taken by an edge the reader can use:
//   rank_all      every edge (reads at an earlier record time, --as-of);
//   rank          edges to contents that are current, not forgotten and accepted;
//   rank_pending  edges to contents that are current, not forgotten, accepted or pending.
// An edge outside a set has no rank in it (null), so it never takes a slot there.
// Each set is numbered by its position in its own filtered list, in time linear in the
// tag's edges (a year tag is mentioned by 1 in 70 passages: counting the set members
// before each edge would be quadratic in that). When every content is visible, as after
// an ingest, one pass writes all three ranks: each is the edge's position.
// Binds r (each ranked edge); the including query aggregates.
WITH refs,
     [x IN ms | x.forgotten_at IS NULL AND x.superseded_at IS NULL
                AND x.trust = 'accepted'] AS accepted,
     [x IN ms | x.forgotten_at IS NULL AND x.superseded_at IS NULL
                AND x.trust IN ['accepted', 'pending']] AS readable
WITH refs,
     [i IN range(0, size(refs) - 1) WHERE accepted[i] | refs[i]] AS ranked,
     [i IN range(0, size(refs) - 1) WHERE readable[i] | refs[i]] AS ranked_pending
WITH refs, ranked, ranked_pending,
     size(ranked) = size(refs) AS every_accepted,
     size(ranked_pending) = size(refs) AS every_readable
FOREACH (i IN range(0, size(refs) - 1) | FOREACH (r IN [refs[i]] |
  SET r.rank_all = i + 1,
      r.rank = CASE WHEN every_accepted THEN i + 1 END,
      r.rank_pending = CASE WHEN every_readable THEN i + 1 END))
FOREACH (i IN CASE WHEN every_accepted THEN [] ELSE range(0, size(ranked) - 1) END |
  FOREACH (r IN [ranked[i]] | SET r.rank = i + 1))
FOREACH (i IN CASE WHEN every_readable THEN [] ELSE range(0, size(ranked_pending) - 1) END |
  FOREACH (r IN [ranked_pending[i]] | SET r.rank_pending = i + 1))
WITH refs
UNWIND refs AS r
