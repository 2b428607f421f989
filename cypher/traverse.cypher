// traverse: reconstruct contents from entry cues (the literal Cue-Tag-Content shape),
// and walk the bridge hop from passage seeds, in one round trip.
// params: ns, scopes, trust, as_of, pending_weight, cues, fanout, decay, prune, limit,
//   paths_per_content, seeds
// returns: content_id, key, evidence, paths, elements, best_hops, trails, seed_id
// render: depth 1..4
// cues: list of {id, score} with score in (0, 1]. A path's evidence is the cue
// score times every edge weight on it, times `decay` for each LINKED_TO hop
// beyond the first. Only the `fanout` strongest edges out of each node are walked
// (ranks set by rank_links and rank_references), paths revisiting a node are not evidence (and
// engines disagree on whether they exist), paths under `prune` are dropped, and the `limit`
// contents with the strongest single path are returned, each with its
// strongest `paths_per_content` trails as [evidence, hops, node ids...] (cue first,
// content last). Texts are not returned: the caller holds them, and nested maps
// and long strings dominate the client's parse time.
// The read view: every node on a path lies in one of $scopes; the content is live
// (not forgotten), was the current version at record time $as_of and was then in a
// trust state of $trust. A pending content's evidence is scaled by $pending_weight.
UNWIND $cues AS cue
// Bind the entry cue first: given the whole pattern at once, FalkorDB's planner
// starts from every Content of the namespace and walks backwards (15x slower).
MATCH (c:Cue {id: cue.id})
WITH cue, c WHERE c.ns = $ns AND c.scope IN $scopes
MATCH p = (c:Cue)-[:LINKED_TO*1..{{depth}}]->(t:Tag)-[:REFERENCES]->(m:Content)
WHERE m.ns = $ns AND m.scope IN $scopes AND m.forgotten_at IS NULL
  AND m.recorded_at <= $as_of AND (m.superseded_at IS NULL OR m.superseded_at > $as_of)
  AND all(n IN nodes(p) WHERE n.ns = $ns AND n.scope IN $scopes)
  AND all(r IN relationships(p) WHERE r.rank <= $fanout)
  AND all(n IN nodes(p) WHERE single(x IN nodes(p) WHERE x = n))
// The trust state at $as_of: the current one unless it changed after $as_of.
WITH cue, m, p,
     CASE WHEN m.trust_since <= $as_of THEN m.trust
          ELSE m.trust_log[size([x IN m.trust_at WHERE x <= $as_of]) - 1] END AS trust
WHERE trust IN $trust
WITH m, p, length(p) - 1 AS hops,
     reduce(e = cue.score, r IN relationships(p) | e * r.weight) * $decay ^ (length(p) - 2)
       * CASE WHEN trust = 'accepted' THEN 1.0 ELSE $pending_weight END AS evidence
WHERE evidence >= $prune
WITH m, p, hops, evidence ORDER BY evidence DESC
WITH m, max(evidence) AS best, count(p) AS paths, sum(2 * length(p) + 1) AS elements,
     min(hops) AS best_hops,
     collect([evidence, hops] + [n IN nodes(p) | n.id]) AS trails
// The order is the caller's to restore: a UNION does not keep a branch's order.
WITH m, best, paths, elements, best_hops, trails ORDER BY best DESC, m.key ASC
LIMIT $limit
RETURN m.id AS content_id, m.key AS key,
       best AS evidence, paths, elements, best_hops,
       trails[0..$paths_per_content] AS trails, null AS seed_id
UNION ALL
// The bridge walk. seeds: content ids of passage seeds (empty below depth 2). A
// seed's primary tag (REFERENCES weight 1.0) links (LINKED_TO) to a tag the seed's
// text mentions (the seed REFERENCES it too), and that tag is the primary tag of the
// bridged content: the literal (Content)<-(Tag)-[:LINKED_TO]->(Tag)-[:REFERENCES]->
// (Content) hop of a bridge question. Backward links are not walked. Rows: one per
// (seed, bridged content), with only content_id and seed_id set.
UNWIND $seeds AS seed
MATCH (s:Content {id: seed})
WITH s WHERE s.ns = $ns AND s.scope IN $scopes
MATCH (a:Tag)-[r1:REFERENCES]->(s)
WHERE a.ns = $ns AND a.scope IN $scopes AND r1.weight >= 1.0
MATCH (a)-[:LINKED_TO]->(b:Tag)-[:REFERENCES]->(s)
WHERE b.ns = $ns AND b.scope IN $scopes
MATCH (b)-[r2:REFERENCES]->(m:Content)
WHERE r2.weight >= 1.0 AND m <> s
  AND m.ns = $ns AND m.scope IN $scopes AND m.forgotten_at IS NULL
  AND m.recorded_at <= $as_of AND (m.superseded_at IS NULL OR m.superseded_at > $as_of)
  AND (CASE WHEN m.trust_since <= $as_of THEN m.trust
         ELSE m.trust_log[size([x IN m.trust_at WHERE x <= $as_of]) - 1] END) IN $trust
WITH DISTINCT s, m
RETURN m.id AS content_id, null AS key, null AS evidence, null AS paths,
       null AS elements, null AS best_hops, null AS trails, s.id AS seed_id
