// namespaces: every namespace holding memories, with its embedding stamp and audit anchor.
// params:
// returns: ns, embedder, audit_seq, audit_head, audit_mac
// scope: namespace-wide: lists namespaces, not memories
MATCH (s:MemorySpace)
RETURN s.ns AS ns, s.embedder AS embedder, s.audit_seq AS audit_seq, s.audit_head AS audit_head,
       s.audit_mac AS audit_mac
ORDER BY ns
