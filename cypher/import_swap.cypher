// import_swap: publish a staged import (replace mode) in ONE statement.
// params: ns, staging, scopes
// returns: deleted, moved
// scope: namespace-wide: replaces the memories of the file's scopes with the staged ones
// Deletes every memory node (content, tag, cue) of the namespace in those scopes,
// then renames the staged namespace's nodes into it. One statement, so atomic on
// every engine: a reader sees the old memories or the new ones, never a mix, and a
// failure leaves the namespace as it was. The MemorySpace node (embedding stamp,
// trusted agents, audit anchor) and other scopes are left alone; traces lose their
// edges to the deleted nodes.
OPTIONAL MATCH (old)
WHERE old.ns = $ns AND old.scope IN $scopes
  AND any(label IN labels(old) WHERE label IN ['Content', 'Tag', 'Cue'])
WITH collect(old) AS olds
FOREACH (o IN olds | DETACH DELETE o)
WITH size(olds) AS deleted
OPTIONAL MATCH (new)
WHERE new.ns = $staging
SET new.ns = $ns
RETURN deleted, count(new) AS moved
