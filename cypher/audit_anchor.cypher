// audit_anchor: remember the namespace's last audit record (detects a truncated log).
// params: ns, seq, head, mac
// returns: seq, head
// scope: namespace-wide: the anchor belongs to the namespace, not to a scope
// The anchor only moves forward: a log deleted and restarted at seq 1 cannot
// overwrite it, so verify still reports the loss. Callers compare the returned
// seq with their own and treat a difference as an error. `mac` is the anchor's
// HMAC with the audit key (audit_records.anchor_mac): without the key an anchor
// can be neither made nor moved back to an earlier record.
MERGE (s:MemorySpace {ns: $ns})
WITH s, (s.audit_seq IS NULL OR s.audit_seq < $seq) AS advance
SET s.audit_seq = CASE WHEN advance THEN $seq ELSE s.audit_seq END,
    s.audit_head = CASE WHEN advance THEN $head ELSE s.audit_head END,
    s.audit_mac = CASE WHEN advance THEN $mac ELSE s.audit_mac END
RETURN s.audit_seq AS seq, s.audit_head AS head
