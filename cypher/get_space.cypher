// get_space: the namespace's settings: embedding stamp, trusted agents, audit anchor.
// params: ns
// returns: embedder, trusted, audit_seq, audit_head
// scope: namespace-wide: one MemorySpace node per namespace
MATCH (s:MemorySpace)
WHERE s.ns = $ns
RETURN s.embedder AS embedder, s.trusted AS trusted,
       s.audit_seq AS audit_seq, s.audit_head AS audit_head
