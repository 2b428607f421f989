// memory_delete_scopes: remove every memory node (content, tag, cue) of some scopes.
// params: ns, scopes
// returns: deleted
// `import --mode replace` runs it first. The namespace's MemorySpace (embedding
// stamp, trusted agents, audit anchor) and other scopes stay; traces lose only
// their edges to the deleted nodes.
MATCH (n)
WHERE n.ns = $ns AND n.scope IN $scopes
  AND any(label IN labels(n) WHERE label IN ['Content', 'Tag', 'Cue'])
DETACH DELETE n
RETURN count(*) AS deleted
