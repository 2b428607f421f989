// tag_name_vectors: the embedding of each named tag's name (its cue of the same text).
// params: ns, scope, names
// returns: name, embedding
// Every tag has a cue of its own text (ingest links it with weight 1.0), embedded by
// the namespace's embedder: the name's vector entity resolution compares.
UNWIND $names AS name
MATCH (c:Cue {scope: $scope, text: name})
WHERE c.ns = $ns
RETURN c.text AS name, c.embedding AS embedding
