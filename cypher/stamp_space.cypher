// stamp_space: record the embedder identity, the spec that builds it and the store schema
// on a namespace's first write (a reader that names no embedder gets the stamped one).
// params: ns, embedder, spec, schema, uid
// returns: embedder
// scope: namespace-wide: the embedding stamp belongs to the namespace
// A new namespace starts at version 0 with a random identity ($uid, a uuid4): an index
// a reader persisted for a deleted namespace of the same name never matches it.
MERGE (s:MemorySpace {ns: $ns})
ON CREATE SET s.embedder = $embedder, s.embedder_spec = $spec, s.schema = $schema,
  s.version = 0, s.uid = $uid
RETURN s.embedder AS embedder
