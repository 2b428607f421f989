// reembed_state: a namespace's embedding stamp and its re-embedding state, if any.
// params: ns
// returns: embedder, migrating_to, cursor
// scope: namespace-wide: re-embedding covers every scope of the namespace
// migrating_to is set while `reembed` rewrites the namespace's cue vectors (the stored
// property keeps its first name); readers
// and writers refuse the namespace until it is cleared (mragent.memory.space.check_space).
MATCH (s:MemorySpace)
WHERE s.ns = $ns
RETURN s.embedder AS embedder, s.migrating_to AS migrating_to, s.migration_cursor AS cursor
