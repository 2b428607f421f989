// reembed_write: store one batch of new cue vectors and advance the migration cursor, in
// ONE statement, so a batch and its cursor commit together on every engine.
// params: ns, target, cursor, cues
// returns: written
// scope: namespace-wide: re-embedding covers every scope of the namespace
// cues: [{id, embedding}]. Each rewritten cue is marked with the target identity
// (c.embedder), so the final sweep can prove no cue was left in the old space.
// Nothing is written unless the namespace is migrating to $target (written = 0 then;
// the caller re-reads the namespace's state to tell that from cues pruned meanwhile).
MATCH (s:MemorySpace)
WHERE s.ns = $ns AND s.migrating_to = $target
SET s.migration_cursor = $cursor
WITH s
UNWIND $cues AS rec
MATCH (c:Cue)
WHERE c.ns = $ns AND c.id = rec.id
SET c.embedding = rec.embedding, c.embedder = $target
RETURN count(c) AS written
