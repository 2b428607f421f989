// contents_by_id: key, title and text of contents named by id.
// params: ns, ids
// returns: id, key, title, text
MATCH (m:Content)
WHERE m.id IN $ids AND m.ns = $ns
RETURN m.id AS id, m.key AS key, m.title AS title, m.text AS text
