// memory_records: every stored property of the contents named by id, with their
// SUPERSEDES and DEPENDS_ON targets: the one shape read by get, history and export.
// params: ns, scopes, ids
// returns: id, key, scope, text, title, source, hash, principal, trust, lineage,
//   recorded_at, superseded_at, valid_from, valid_to, forgotten_at, forget_reason,
//   forgotten_by, forget_reviewed_by, forget_reviewed_at, purged_at, reviewed_by,
//   reviewed_at, trust_at, trust_log, given_tags, given_cues, supersedes, depends_on
// Tombstones included: callers decide what to show.
MATCH (m:Content)
WHERE m.id IN $ids AND m.ns = $ns AND m.scope IN $scopes
OPTIONAL MATCH (m)-[:SUPERSEDES]->(o:Content)
WHERE o.scope IN $scopes
WITH m, collect(o.id) AS supersedes
OPTIONAL MATCH (m)-[:DEPENDS_ON]->(d:Content)
WHERE d.scope IN $scopes
WITH m, supersedes, collect(d.id) AS depends_on
RETURN m.id AS id, m.key AS key, m.scope AS scope, m.text AS text, m.title AS title,
       m.source AS source, m.hash AS hash, m.principal AS principal, m.trust AS trust,
       m.lineage AS lineage, m.recorded_at AS recorded_at, m.superseded_at AS superseded_at,
       m.valid_from AS valid_from, m.valid_to AS valid_to, m.forgotten_at AS forgotten_at,
       m.forget_reason AS forget_reason, m.forgotten_by AS forgotten_by,
       m.forget_reviewed_by AS forget_reviewed_by,
       m.forget_reviewed_at AS forget_reviewed_at, m.purged_at AS purged_at,
       m.reviewed_by AS reviewed_by, m.reviewed_at AS reviewed_at,
       m.trust_at AS trust_at, m.trust_log AS trust_log,
       m.given_tags AS given_tags, m.given_cues AS given_cues, supersedes, depends_on
ORDER BY recorded_at, id
