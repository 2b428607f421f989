// memory_existing: versions of the scopes that already hold one of these ids or keys.
// params: ns, scopes, ids, keys
// returns: id, key, scope
// Import checks it before writing: an id found is skipped (merge), a key found
// under another id is refused (ingest merges contents on their key).
MATCH (m:Content)
WHERE m.ns = $ns AND m.scope IN $scopes AND (m.id IN $ids OR m.key IN $keys)
RETURN m.id AS id, m.key AS key, m.scope AS scope
ORDER BY m.scope, m.id
