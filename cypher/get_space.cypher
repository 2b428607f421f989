// get_space: the namespace's settings: embedding stamp (and a re-embedding under way),
// trusted agents, audit anchor.
// params: ns
// returns: embedder, embedder_spec, migrating_to, migrating_spec, schema, trusted,
//   audit_seq, audit_head
// scope: namespace-wide: one MemorySpace node per namespace
MATCH (s:MemorySpace)
WHERE s.ns = $ns
RETURN s.embedder AS embedder, s.embedder_spec AS embedder_spec,
       s.migrating_to AS migrating_to, s.migrating_spec AS migrating_spec, s.schema AS schema,
       s.trusted AS trusted,
       s.audit_seq AS audit_seq, s.audit_head AS audit_head
