// memory_prune_tags: delete tags that no longer reference any content.
// params: ns, scopes, tags
// returns: id, cues, version
// A tag every referencing content of which was forgotten exists only because of
// forgotten text, so it goes, with its edges. `cues` that linked to it are
// returned for memory_prune_cues.
{{> bump space}}
WITH space
UNWIND $tags AS tag_id
MATCH (t:Tag {id: tag_id})
WHERE t.ns = $ns AND t.scope IN $scopes
OPTIONAL MATCH (t)-[r:REFERENCES]->(:Content)
WITH space, t, count(r) AS refs
WHERE refs = 0
OPTIONAL MATCH (c:Cue)-[:LINKED_TO]->(t)
WHERE c.scope IN $scopes
WITH space, t, t.id AS id, collect(c.id) AS cues
DETACH DELETE t
RETURN id, cues, space.version AS version
