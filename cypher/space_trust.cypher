// space_trust: set the agents whose memories are accepted on write.
// params: ns, trusted
// returns: trusted
// scope: namespace-wide: who may write accepted memories is a property of the namespace
MATCH (s:MemorySpace)
WHERE s.ns = $ns
SET s.trusted = $trusted
RETURN s.trusted AS trusted
