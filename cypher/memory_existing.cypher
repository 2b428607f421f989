// memory_existing: versions of the scopes that already hold one of these ids or keys.
// params: ns, scopes, ids, keys
// returns: id, key, scope, forgotten, linked, supersedes, depends_on
// Import checks it before writing: an id found is skipped (merge), a key found
// under another id is refused (ingest merges contents on their key). `linked`
// (a tag references the version) and its edges let a merge run again after a
// failure complete what the failed run left out.
MATCH (m:Content)
WHERE m.ns = $ns AND m.scope IN $scopes AND (m.id IN $ids OR m.key IN $keys)
OPTIONAL MATCH (t:Tag)-[:REFERENCES]->(m)
WHERE t.scope IN $scopes
WITH m, count(t) AS tags
OPTIONAL MATCH (m)-[:SUPERSEDES]->(o:Content)
WHERE o.scope IN $scopes
WITH m, tags, collect(o.id) AS supersedes
OPTIONAL MATCH (m)-[:DEPENDS_ON]->(d:Content)
WHERE d.scope IN $scopes
WITH m, tags, supersedes, collect(d.id) AS depends_on
RETURN m.id AS id, m.key AS key, m.scope AS scope,
       m.forgotten_at IS NOT NULL AS forgotten, tags > 0 AS linked,
       supersedes, depends_on
ORDER BY scope, id
