// trace_prune: keep the newest `keep` traces of a namespace, delete the older ones.
// params: ns, keep
// returns: deleted
// scope: namespace-wide: traces are telemetry with their own cap, not memories
// created_at is the record time (ISO 8601 UTC, fixed width, so it sorts as text).
MATCH (tr:Trace)
WHERE tr.ns = $ns
WITH tr ORDER BY tr.created_at DESC, tr.id DESC
SKIP $keep
DETACH DELETE tr
RETURN count(*) AS deleted
