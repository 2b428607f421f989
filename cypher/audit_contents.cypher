// audit_contents: every version of a namespace with what `audit verify` checks, a page at a time.
// params: ns, after, limit
// returns: id, key, scope, text, hash, principal, lineage, recorded_at, trust, seal, forgotten_at
// scope: namespace-wide: the audit checks every scope of the namespace
// Paged by id (ids are unique per namespace): `after` is the last id of the page before.
MATCH (m:Content)
WHERE m.ns = $ns AND m.id > $after
RETURN m.id AS id, m.key AS key, m.scope AS scope, m.text AS text, m.hash AS hash,
       m.principal AS principal, m.lineage AS lineage, m.recorded_at AS recorded_at,
       m.trust AS trust, m.seal AS seal, m.forgotten_at AS forgotten_at
ORDER BY id
LIMIT $limit
