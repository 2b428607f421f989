// ingest_batch: upsert one batch of contents, tags, cues and edges in ONE statement,
// so a batch is atomic on every engine (FalkorDB has no multi-statement transactions).
// params: ns, contents, tags, cues, refs, cue_links, tag_links
// returns:
// Nodes are merged on their natural key (Content.key, Tag.name, Cue.text) and keep
// the random id given on first creation, so re-ingesting the same batch adds nothing.
// FOREACH rather than UNWIND: an empty list must not end the statement early.
// Every tag, cue and content an edge names is in the same batch's node lists.
FOREACH (rec IN $contents |
  MERGE (m:Content {ns: $ns, key: rec.key})
  ON CREATE SET m.id = rec.id, m.text = rec.text, m.title = rec.title, m.source = rec.source)
FOREACH (rec IN $tags |
  MERGE (t:Tag {ns: $ns, name: rec.name})
  ON CREATE SET t.id = rec.id)
FOREACH (rec IN $cues |
  MERGE (c:Cue {ns: $ns, text: rec.text})
  ON CREATE SET c.id = rec.id, c.embedding = rec.embedding)
FOREACH (rec IN $refs |
  MERGE (t:Tag {ns: $ns, name: rec.tag})
  MERGE (m:Content {ns: $ns, key: rec.content})
  MERGE (t)-[r:REFERENCES]->(m)
  SET r.weight = rec.weight)
FOREACH (rec IN $cue_links |
  MERGE (c:Cue {ns: $ns, text: rec.cue})
  MERGE (t:Tag {ns: $ns, name: rec.tag})
  MERGE (c)-[l:LINKED_TO]->(t)
  SET l.weight = rec.weight)
FOREACH (rec IN $tag_links |
  MERGE (s:Tag {ns: $ns, name: rec.src})
  MERGE (t:Tag {ns: $ns, name: rec.dst})
  MERGE (s)-[l:LINKED_TO]->(t)
  SET l.weight = rec.weight)
