// traverse: one question's round trip. Confirm the entry candidates under the read
// view, reconstruct contents from the confirmed cues (the literal Cue-Tag-Content
// shape), walk the bridge hop from the confirmed passage seeds, and report the
// namespace version the answer was read at (and, asked for, the provenance of every
// content handed back).
// params: ns, scopes, trust, as_of, pending_weight, candidates, cue_k, fanout, link_fanout,
//   alias_min, alias_weight, decay,
//   prune, limit, paths_per_content, bridges, hand_refs, records
// returns: version, uid, entries, found, bridged, records
// render: depth 1..4, rank {rank|rank_pending|rank_all}
// candidates: [{id, score, seed}] in the reader's order: cue ids with scores in (0, 1],
// seed the id of the content a passage seed enters for (null for a cue-search hit).
// A seed is confirmed when its content is visible (the visible fragment), a cue when it
// leads in one ranked hop (LINKED_TO and REFERENCES ranks within $fanout) to a visible
// content; the first $cue_k confirmed are the entry points (entries: [position,
// seed id, key, title, text, tags], the seed fields null for a cue), so nothing the view
// hides can be an entry point or show its words.
// The traversal: a path's evidence is the cue score times every edge weight on it,
// times $decay for each LINKED_TO hop beyond the first; an alias edge (two tags naming
// the same thing, tag_alias_link) of similarity at least $alias_min weighs
// $alias_weight (or its co-occurrence weight, when the tags co-occur and that is
// more), and is walked outside the fanout. Only the $fanout strongest edges
// out of each node are walked ($link_fanout between two tags: a later round walks
// aliases alone beyond its entry tags): LINKED_TO ranks by rank_links, REFERENCES
// ranks by rank_references, in the property `rank` names for the view (rank: accepted,
// rank_pending: accepted or pending, rank_all: a read at an earlier record time), so an
// edge to an invisible content takes no slot. The literal pattern
// (c:Cue)-[:LINKED_TO*1..N]->(t:Tag)-[:REFERENCES]->(m:Content) is matched in two steps
// so that each condition acts where its part of the path is built and the work is
// bounded by the genome: the LINKED_TO rank and view are checked on each edge while the
// variable-length step expands (the walkable fragment), paths revisiting a node are
// dropped as soon as that step ends (they are not evidence, and engines disagree on
// whether they exist), and only the surviving walks are extended by their $fanout
// strongest REFERENCES to visible contents (tests/test_traverse_forms.py runs the
// one-pattern form beside this one and gets the same rows). Paths under $prune are
// dropped, and the $limit contents with the strongest single path are returned (found:
// [id, key, title, text, evidence, paths, elements, best hops, trails, tags], strongest first,
// ties on the key), each with its strongest $paths_per_content trails as [evidence, hops,
// node ids...] (cue first, content last; ties: fewer hops, then the names along the
// trail). A pending content's evidence is scaled by $pending_weight.
// The bridge walk ($bridges: traversalDepth >= 2): from each confirmed seed, its primary
// tag (REFERENCES weight 1.0) links (LINKED_TO) to a tag the seed's text mentions (the
// seed REFERENCES it too), and that tag is the primary tag of the bridged content (a
// tag no content has as its primary, marked by ingest, is passed over unread): the
// literal (Content)<-(Tag)-[:LINKED_TO]->(Tag)-[:REFERENCES]->(Content) hop of a bridge
// question (bridged: [seed id, id, key, title, text, tags], by content key, then seed key).
// Backward links are not walked.
// Every content handed back comes with its specific tags (handed_tags), the cues a
// later round enters at (none with $hand_refs 0).
// Every text handed back is read here, under the view, in this round trip: the reader
// keeps no copy of any content's text.
// With $records, every content handed back (seeds, found, bridged) comes with its
// provenance in the same round trip (records: [id, trust, trust_at, trust_log, scope,
// principal, source, lineage, recorded_at]), so a caller that shows it (the facade's recall) needs
// no second one; evaluation leaves it off.
MATCH (space:MemorySpace)
WHERE space.ns = $ns
WITH space
CALL {
  UNWIND range(0, size($candidates) - 1) AS i
  WITH i, $candidates[i] AS cand
  // The id lookup first (a WHERE on the MATCH would let FalkorDB scan the ns index).
  MATCH (c:Cue {id: cand.id})
  WITH i, cand, c WHERE c.ns = $ns AND c.scope IN $scopes
  OPTIONAL MATCH (seed:Content {id: cand.seed})
  WHERE {{> visible seed}}
  // One ranked hop, written as a variable-length step so FalkorDB checks the rank
  // of each LINKED_TO edge while it expands (a keyword cue may link to thousands).
  WITH i, cand, seed,
       size([(c)-[e:LINKED_TO*1..1]->(t:Tag)-[r:REFERENCES]->(x:Content)
             WHERE {{> walkable e}} AND r.{{rank}} <= $fanout AND {{> visible x}} | 1]) AS reach
  WHERE seed IS NOT NULL OR (cand.seed IS NULL AND reach > 0)
  WITH i, seed ORDER BY i
  WITH collect([i, seed.id, seed.key, seed.title, seed.text,
                CASE WHEN seed IS NULL THEN [] ELSE {{> handed_tags seed}} END]) AS confirmed
  RETURN confirmed[0..$cue_k] AS entries
}
CALL {
  WITH entries
  UNWIND entries AS entry
  WITH $candidates[entry[0]] AS cand
  // Bind the entry cue first: given the whole pattern at once, FalkorDB's planner
  // starts from every Content of the namespace and walks backwards (15x slower).
  MATCH (c:Cue {id: cand.id})
  WITH cand, c WHERE c.ns = $ns AND c.scope IN $scopes
  MATCH p = (c:Cue)-[e:LINKED_TO*1..{{depth}}]->(t:Tag)
  WHERE {{> walkable e}}
  WITH cand, t, nodes(p) AS walk, relationships(p) AS links
  WHERE all(n IN walk WHERE single(x IN walk WHERE x = n))
  MATCH (t)-[r:REFERENCES]->(m:Content)
  WHERE r.{{rank}} <= $fanout AND {{> visible m}}
  // From here on a path is its nodes (cue first, content last) and its edges.
  WITH cand, m, walk + [m] AS trail, links + [r] AS edges
  WITH cand, m, trail, edges, {{> trust_at m}} AS trust
  WITH m, trail, edges, size(edges) - 1 AS hops,
       reduce(ev = cand.score, x IN edges | ev * CASE
         WHEN x.alias >= $alias_min AND $alias_weight > coalesce(x.weight, 0.0)
         THEN $alias_weight ELSE x.weight END) * $decay ^ (size(edges) - 2)
         * CASE WHEN trust = 'accepted' THEN 1.0 ELSE $pending_weight END AS evidence
  WHERE evidence >= $prune
  // Equal trails order by hops, then by the names along them (ids are random): the
  // trails kept per content, and so the rerank, are the same on every engine. A list
  // of names compares element by element on every engine, and costs less to build
  // than one string.
  WITH m, trail, edges, hops, evidence,
       [n IN trail | coalesce(n.key, n.name, n.text)] AS names
  ORDER BY evidence DESC, hops ASC, names ASC
  WITH m, max(evidence) AS best, count(*) AS paths, sum(2 * size(edges) + 1) AS elements,
       min(hops) AS best_hops, collect([evidence, hops] + [n IN trail | n.id]) AS trails
  WITH m, best, paths, elements, best_hops, trails ORDER BY best DESC, m.key ASC
  LIMIT $limit
  RETURN collect([m.id, m.key, m.title, m.text, best, paths, elements, best_hops,
                  trails[0..$paths_per_content], {{> handed_tags m}}]) AS found
}
CALL {
  WITH entries
  UNWIND [entry IN entries WHERE $bridges AND entry[1] IS NOT NULL | entry[1]] AS seed_id
  MATCH (s:Content {id: seed_id})
  WITH s WHERE s.ns = $ns AND s.scope IN $scopes
  MATCH (a:Tag)-[r1:REFERENCES]->(s)
  WHERE a.ns = $ns AND a.scope IN $scopes AND r1.weight >= 1.0
  MATCH (a)-[:LINKED_TO]->(b:Tag)-[:REFERENCES]->(s)
  WHERE b.ns = $ns AND b.scope IN $scopes AND coalesce(b.primary, true)
  MATCH (b)-[r2:REFERENCES]->(m:Content)
  WHERE r2.weight >= 1.0 AND m <> s AND {{> visible m}}
  WITH DISTINCT s, m ORDER BY m.key, s.key
  RETURN collect([s.id, m.id, m.key, m.title, m.text, {{> handed_tags m}}]) AS bridged
}
CALL {
  WITH entries, found, bridged
  UNWIND CASE WHEN $records
    THEN [e IN entries WHERE e[1] IS NOT NULL | e[1]] + [f IN found | f[0]] + [b IN bridged | b[1]]
    ELSE [] END AS record_id
  WITH DISTINCT record_id
  MATCH (m:Content {id: record_id})
  WITH m WHERE m.ns = $ns AND m.scope IN $scopes
  RETURN collect([m.id, m.trust, m.trust_at, m.trust_log, m.scope, m.principal, m.source,
                  m.lineage, m.recorded_at]) AS records
}
RETURN space.version AS version, space.uid AS uid, entries, found, bridged, records
