// memory_prune_cues: delete cues that no longer link to any tag.
// params: ns, scopes, cues
// returns: id, version
// A deleted cue leaves no node for a reader's change feed to find, so its id is
// recorded on the MemorySpace in the same statement: dropped_ids and dropped_v
// (parallel lists, the newest 50,000 kept). dropped_floor is the newest version
// whose record fell off the list: a reader older than it rebuilds from scratch.
{{> bump space}}
WITH space
UNWIND $cues AS cue_id
MATCH (c:Cue {id: cue_id})
WHERE c.ns = $ns AND c.scope IN $scopes
OPTIONAL MATCH (c)-[l:LINKED_TO]->(:Tag)
WITH space, c, c.id AS id, count(l) AS links
WHERE links = 0
DETACH DELETE c
WITH space, collect(id) AS ids
WITH space, ids, coalesce(space.dropped_ids, []) + ids AS kept_ids,
     coalesce(space.dropped_v, []) + [id IN ids | space.version] AS kept_v
WITH space, ids, kept_ids, kept_v, size(kept_ids) - 50000 AS over
SET space.dropped_ids = CASE WHEN over > 0 THEN kept_ids[over..] ELSE kept_ids END,
    space.dropped_v = CASE WHEN over > 0 THEN kept_v[over..] ELSE kept_v END,
    space.dropped_floor = CASE WHEN over > 0 THEN kept_v[over - 1]
                               ELSE coalesce(space.dropped_floor, 0) END
WITH space, ids
UNWIND ids AS id
RETURN id, space.version AS version
