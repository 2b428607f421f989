// reembed_write: store one batch of new cue vectors and advance the migration cursor, in
// ONE statement, so a batch and its cursor commit together on every engine.
// params: ns, target, cursor, cues
// returns: written, version
// scope: namespace-wide: re-embedding covers every scope of the namespace
// cues: [{id, embedding}]. Each rewritten cue is marked with the target identity
// (c.embedder) and stamped with the new namespace version (v), so the final sweep can
// prove no cue was left in the old space and readers pick up the new vectors.
// Nothing is written unless the namespace is migrating to $target (written = 0 then;
// the caller re-reads the namespace's state to tell that from cues pruned meanwhile).
// REMOVE before SET: FalkorDB 4.16 silently keeps the old value when a vecf32
// property is overwritten in place (a plain SET, or SET inside FOREACH, is a no-op).
{{> bump space}}
WITH space WHERE space.migrating_to = $target
SET space.migration_cursor = $cursor
WITH space
UNWIND $cues AS rec
MATCH (c:Cue)
WHERE c.ns = $ns AND c.id = rec.id
REMOVE c.embedding
SET c.embedding = {{> vector rec.embedding}}, c.embedder = $target, c.v = space.version
RETURN count(c) AS written, max(c.v) AS version
