// memory_prune_cues: delete cues that no longer link to any tag.
// params: ns, scopes, cues
// returns: id
UNWIND $cues AS cue_id
MATCH (c:Cue {id: cue_id})
WHERE c.ns = $ns AND c.scope IN $scopes
OPTIONAL MATCH (c)-[l:LINKED_TO]->(:Tag)
WITH c, c.id AS id, count(l) AS links
WHERE links = 0
DETACH DELETE c
RETURN id
