// fragment: ingest_links(cs)
// params: cue_links, tag_links
// An ingest batch's Cue->Tag and Tag->Tag links, merged between the batch's tags `ts`
// (new_tags + old_tags, bound by ingest_names) and cues `cs` (new_cues + old_cues), each
// weighted. A link recurs across the batches of one load (a keyword of contents in two
// batches), so even a bulk load merges them; every batch of a load sends a link the same
// weight (ingest.py weighs it from the whole corpus), and a later write's weight stands.
CALL {
  WITH ts, cs
  UNWIND range(0, size($cue_links.cue) - 1) AS i
  WITH cs[$cue_links.cue[i]] AS c, ts[$cue_links.tag[i]] AS t, $cue_links.weight[i] AS weight
  MERGE (c)-[l:LINKED_TO]->(t)
  SET l.weight = weight
  RETURN count(l) AS cue_linked
}
CALL {
  WITH ts
  UNWIND range(0, size($tag_links.src) - 1) AS i
  WITH ts[$tag_links.src[i]] AS s, ts[$tag_links.dst[i]] AS t, $tag_links.weight[i] AS weight
  MERGE (s)-[l:LINKED_TO]->(t)
  SET l.weight = weight
  RETURN count(l) AS tag_linked
}
