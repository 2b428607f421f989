// import_swap: publish a staged import (replace mode) in ONE statement.
// params: ns, staging, scopes
// returns: deleted, moved, version
// scope: namespace-wide: replaces the memories of the file's scopes with the staged ones
// Deletes every memory node (content, tag, cue) of the namespace in those scopes,
// then renames the staged namespace's nodes into it and deletes the staging
// namespace's MemorySpace. One statement, so atomic on every engine: a reader sees the
// old memories or the new ones, never a mix, and a failure leaves the namespace as it
// was. The MemorySpace node (embedding stamp, trusted agents, audit anchor) and other
// scopes are left alone; traces lose their edges to the deleted nodes. Nothing records
// which ids went: the namespace's dropped_floor moves to the new version, so every
// reader older than it rebuilds; the moved nodes are stamped with that version (v).
{{> bump space}}
SET space.dropped_floor = space.version
WITH space
OPTIONAL MATCH (old)
WHERE old.ns = $ns AND old.scope IN $scopes
  AND any(label IN labels(old) WHERE label IN ['Content', 'Tag', 'Cue'])
WITH space, collect(old) AS olds
FOREACH (o IN olds | DETACH DELETE o)
WITH space, size(olds) AS deleted
OPTIONAL MATCH (new)
WHERE new.ns = $staging AND any(label IN labels(new) WHERE label IN ['Content', 'Tag', 'Cue'])
SET new.ns = $ns, new.v = space.version
WITH space, deleted, count(new) AS moved
OPTIONAL MATCH (staged:MemorySpace)
WHERE staged.ns = $staging
DETACH DELETE staged
RETURN deleted, moved, max(space.version) AS version
