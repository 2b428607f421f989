// content_snapshot: every content of a namespace, for the flat baselines.
// params: ns
// returns: id, key, title, text
MATCH (m:Content)
WHERE m.ns = $ns
RETURN m.id AS id, m.key AS key, m.title AS title, m.text AS text
ORDER BY m.key
