// contents_by_id: key, title and text of contents named by id, within the read view.
// params: ns, scopes, trust, as_of, ids
// returns: id, key, title, text, trust
MATCH (m:Content)
WHERE m.id IN $ids AND m.ns = $ns AND m.scope IN $scopes AND m.forgotten_at IS NULL AND m.trust IN $trust
  AND m.recorded_at <= $as_of AND (m.superseded_at IS NULL OR m.superseded_at > $as_of)
RETURN m.id AS id, m.key AS key, m.title AS title, m.text AS text, m.trust AS trust
