// get_space: the namespace's settings: embedding stamp (and a re-embedding under way),
// trusted agents, audit anchor, and what a reader's indexes are checked against.
// params: ns
// returns: embedder, embedder_spec, migrating_to, migrating_spec, schema, trusted,
//   audit_seq, audit_head, version, uid, purged_v, dropped_floor
// scope: namespace-wide: one MemorySpace node per namespace
// version: bumped by every write (the bump fragment); uid: the namespace's identity;
// purged_v: the version of the last purge (older index files are void); dropped_floor:
// readers older than it cannot follow the change feed and rebuild.
MATCH (s:MemorySpace)
WHERE s.ns = $ns
RETURN s.embedder AS embedder, s.embedder_spec AS embedder_spec,
       s.migrating_to AS migrating_to, s.migrating_spec AS migrating_spec, s.schema AS schema,
       s.trusted AS trusted,
       s.audit_seq AS audit_seq, s.audit_head AS audit_head,
       coalesce(s.version, 0) AS version, s.uid AS uid,
       coalesce(s.purged_v, 0) AS purged_v, coalesce(s.dropped_floor, 0) AS dropped_floor
