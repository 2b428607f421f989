// memory_delete_scopes: remove every memory node (content, tag, cue) of some scopes.
// params: ns, scopes
// returns: deleted, version
// `import --mode replace` runs it first. The namespace's MemorySpace (embedding
// stamp, trusted agents, audit anchor) and other scopes stay; traces lose only
// their edges to the deleted nodes. Nothing records which ids went: the namespace's
// dropped_floor moves to the new version, so every reader older than it rebuilds.
{{> bump space}}
SET space.dropped_floor = space.version
WITH space
OPTIONAL MATCH (n)
WHERE n.ns = $ns AND n.scope IN $scopes
  AND any(label IN labels(n) WHERE label IN ['Content', 'Tag', 'Cue'])
DETACH DELETE n
RETURN count(n) AS deleted, space.version AS version
