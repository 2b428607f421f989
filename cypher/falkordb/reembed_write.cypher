// reembed_write: store one batch of new cue vectors and advance the migration cursor, in
// ONE statement, so a batch and its cursor commit together on every engine
// (FalkorDB dialect: vectors stored as vecf32 for its vector index).
// params: ns, target, cursor, cues
// returns: written
// scope: namespace-wide: re-embedding covers every scope of the namespace
// cues: [{id, embedding}]. Each rewritten cue is marked with the target identity
// (c.embedder), so the final sweep can prove no cue was left in the old space.
// Nothing is written unless the namespace is migrating to $target (written = 0 then;
// the caller re-reads the namespace's state to tell that from cues pruned meanwhile).
// REMOVE before SET: FalkorDB 4.16 silently keeps the old value when a vecf32
// property is overwritten in place (a plain SET, or SET inside FOREACH, is a no-op).
MATCH (s:MemorySpace)
WHERE s.ns = $ns AND s.migrating_to = $target
SET s.migration_cursor = $cursor
WITH s
UNWIND $cues AS rec
MATCH (c:Cue)
WHERE c.ns = $ns AND c.id = rec.id
REMOVE c.embedding
SET c.embedding = vecf32(rec.embedding), c.embedder = $target
RETURN count(c) AS written
