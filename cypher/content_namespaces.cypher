// content_namespaces: every namespace some Content node names, with how many it holds.
// params:
// returns: ns, contents
// scope: namespace-wide: `audit verify` looks for memories outside every audited namespace
// Read from the contents themselves, not from MemorySpace: a memory moved to a
// namespace that has none is found too.
MATCH (m:Content)
RETURN m.ns AS ns, count(m) AS contents
ORDER BY ns
