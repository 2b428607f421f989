"""Re-embedding: move every cue and content of a namespace into another embedder's space.

A namespace is stamped with the identity of the embedder that wrote it, and a
write with any other identity is refused (:func:`mragent.core.embedding.check_identity`).
:func:`reembed` is the one sanctioned way to change it. It is namespace-wide:
every cue and every live content (its passage embedding) of every scope gets a
new vector; a tombstone keeps none.

A "migration" in mragent is the schema upgrade (:mod:`mragent.apps.migrate`);
this is a re-embedding. Only the stored properties ``migrating_to`` and
``migration_cursor`` keep the names they were first written with (renaming them
would need a schema upgrade of every namespace).

A re-embedding survives a crash at any point:

1. The namespace's ``MemorySpace`` is marked ``migrating_to = <target identity>``
   before the first vector is rewritten (``reembed_begin``). From then on the
   namespace is neither readable nor writable: every reader and writer opens it
   through :func:`mragent.memory.space.check_space`, which refuses a namespace
   whose settings (``get_space``) name a ``migrating_to``, since its cues are in
   two spaces at once.
2. Cues, then contents, are read page by page, ordered by id (``reembed_page``,
   ``reembed_content_page``), embedded, and written back in batches
   (``reembed_write``, ``reembed_content_write``). Each batch stores its vectors,
   marks every rewritten node with the target identity (``embedder``) and
   advances ``migration_cursor`` on the ``MemorySpace`` in one statement, so a
   batch and its cursor commit together on every engine (the cursor of the
   content pass is ``content:<id>``).
3. A final sweep from the start finds any node still not embedded by the target
   (one written while the namespace was being re-embedded, despite the fence) and
   rewrites it, so nothing is left in the old space.
4. If the dimension changes, the native vector index (one per database, shared
   by every namespace) is dropped before the first batch and recreated for the
   new dimension after the last; the run waits until it answers.
5. The namespace is restamped and the mark cleared (``reembed_finish``).

Re-running :func:`reembed` with the same target resumes from the cursor; with
another target it restarts the re-embedding towards that one (every cue is
rewritten again). A dimension change is refused while another namespace of the
database still uses another dimension, since recreating the shared index would
leave that namespace's vectors unindexed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mragent.apps.reembed.index import (
    await_vector_index,
    dimension_of,
    drop_vector_index,
    rebuild_vector_index,
    refuse_other_dimensions,
)
from mragent.apps.reembed.pages import (
    CONTENT_CURSOR,
    CONTENTS,
    CUES,
    Rewritten,
    check_still_reembedding,
    count_nodes,
)
from mragent.core.corpus import validate_namespace
from mragent.core.embedding import Embedder
from mragent.core.errors import MragentError, WriteRefused
from mragent.core.store.base import GraphStore
from mragent.memory.aliases import relink_namespace
from mragent.memory.audit import AuditLog
from mragent.memory.audited import audited
from mragent.memory.principal import Principal

BATCH_SIZE = 500


@dataclass(frozen=True)
class ReembedState:
    """A namespace's embedding stamp and re-embedding state.

    Attributes:
        embedder: Identity text the namespace is stamped with (None: never written).
        migrating_to: Identity text of an unfinished re-embedding's target, if any.
        cursor: Id of the last cue the unfinished re-embedding rewrote ('' before the first).
    """

    embedder: str | None
    migrating_to: str | None
    cursor: str

    @property
    def unfinished(self) -> bool:
        """Whether a re-embedding of the namespace is unfinished."""
        return self.migrating_to is not None


@dataclass(frozen=True)
class ReembedReport:
    """What a :func:`reembed` run did (the audit record's material).

    Attributes:
        namespace: The namespace.
        principal: Who asked for the re-embedding.
        before: Identity text the namespace was stamped with.
        after: Identity text it is stamped with now.
        changed: False when the namespace already used the target (nothing written).
        cues: Cue vectors this run rewrote.
        total: Cues in the namespace.
        contents: Passage vectors (contents) this run rewrote.
        content_total: Live contents in the namespace.
        batches: Write statements this run made.
        resumed: True when the run finished an interrupted re-embedding to the same target.
        restarted_from: Target of an interrupted re-embedding this run replaced, if any.
        index_rebuilt: True when the native vector index was recreated for a new dimension.
    """

    namespace: str
    principal: str
    before: str
    after: str
    changed: bool
    cues: int
    total: int
    contents: int
    content_total: int
    batches: int
    resumed: bool
    restarted_from: str | None
    index_rebuilt: bool


def reembed_state(store: GraphStore, ns: str) -> ReembedState | None:
    """The namespace's stamp and re-embedding state; None when it has no ``MemorySpace``."""
    rows = store.run("reembed_state", {"ns": ns})
    if not rows:
        return None
    row = rows[0]
    return ReembedState(row["embedder"], row["migrating_to"], row["cursor"] or "")


def reembed(
    store: GraphStore,
    ns: str,
    new_embedder: Embedder,
    *,
    principal: Principal,
    audit: AuditLog,
    progress: Callable[[int, int], None] | None = None,
    batch_size: int = BATCH_SIZE,
) -> ReembedReport:
    """:func:`rewrite_vectors`, audited: one ``reembed`` record before the first write.

    A namespace already on the target embedder is left alone and not audited.

    Raises:
        WriteRefused: for an agent (re-embedding rewrites the cues of every scope).
    """
    if principal.is_agent:
        raise WriteRefused(
            f"reembed rewrites the cues of every scope; it needs a human or system "
            f"principal, not {principal}"
        )
    state = reembed_state(store, ns)
    target = new_embedder.identity.as_text()
    if state is not None and _unchanged(store, ns, state, target):
        who = str(principal)
        return rewrite_vectors(store, ns, new_embedder, principal=who, batch_size=batch_size)
    source = state.embedder if state else None
    detail = {"from": source, "to": target}
    with audited(store, audit, ns, principal, "reembed", ns, None, None, detail):
        return rewrite_vectors(
            store,
            ns,
            new_embedder,
            principal=str(principal),
            progress=progress,
            batch_size=batch_size,
        )


def rewrite_vectors(
    store: GraphStore,
    ns: str,
    new_embedder: Embedder,
    *,
    principal: str,
    progress: Callable[[int, int], None] | None = None,
    batch_size: int = BATCH_SIZE,
) -> ReembedReport:
    """Rewrite every cue and live content of namespace ``ns`` (every scope) with ``new_embedder``.

    Resumes an interrupted re-embedding to the same embedder; restarts one that
    was heading to another. A namespace already stamped with the target, not
    being re-embedded and with every live content embedded is left as it is (``changed``
    is False); one whose contents predate passage embeddings is rewritten.

    Args:
        store: An open store.
        ns: The namespace.
        new_embedder: The embedder whose vectors replace the current ones.
        principal: Who asks for it; carried into the report for the audit log.
        progress: Called as ``progress(done, total)`` after each committed batch
            (cues and contents). An exception it raises stops the run, leaving
            the namespace marked as being re-embedded; a re-run resumes.
        batch_size: Cues per page and per write statement.

    Raises:
        CorpusError: for an invalid namespace.
        MragentError: when the namespace holds no memories, or another process
            finished or restarted the re-embedding meanwhile.
        EmbeddingMismatch: when the dimension changes and another namespace of
            the database still uses another dimension (naming them).
    """
    validate_namespace(ns)
    if batch_size < 1:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    target = new_embedder.identity
    target_text = target.as_text()
    state = reembed_state(store, ns)
    if state is None or state.embedder is None:
        raise MragentError(f"namespace {ns!r} holds no memories: nothing to re-embed")
    source_text = state.embedder
    if _unchanged(store, ns, state, target_text):
        found = count_nodes(store, ns, target_text)
        return ReembedReport(
            namespace=ns,
            principal=principal,
            before=target_text,
            after=target_text,
            changed=False,
            cues=0,
            total=found["cues"],
            contents=0,
            content_total=found["contents"],
            batches=0,
            resumed=False,
            restarted_from=None,
            index_rebuilt=False,
        )

    start = _begin(store, ns, state, source_text, new_embedder)
    run = Rewritten(store, ns, new_embedder, batch_size, progress)
    content_phase = start.cursor.startswith(CONTENT_CURSOR)
    # In the content pass already: the cue pass only sweeps for stragglers from ''.
    run.rewrite(CUES, "" if content_phase else start.cursor)
    run.rewrite(CONTENTS, start.cursor.removeprefix(CONTENT_CURSOR) if content_phase else "")
    _finish(store, ns, new_embedder, start.rebuild)
    return ReembedReport(
        namespace=ns,
        principal=principal,
        before=source_text,
        after=target_text,
        changed=True,
        cues=run.written["cues"],
        total=run.totals["cues"],
        contents=run.written["contents"],
        content_total=run.totals["contents"],
        batches=run.batches,
        resumed=start.resumed,
        restarted_from=start.restarted_from,
        index_rebuilt=start.rebuild,
    )


def _unchanged(store: GraphStore, ns: str, state: ReembedState, target: str) -> bool:
    """Whether ``ns`` is on ``target`` already, every live content with its vector."""
    if state.migrating_to is not None or state.embedder != target:
        return False
    return count_nodes(store, ns, target)["unembedded"] == 0


@dataclass(frozen=True)
class _Start:
    """How a run begins: resuming or (re)starting, from which cue, rebuilding the index or not."""

    resumed: bool
    restarted_from: str | None
    rebuild: bool
    cursor: str


def _begin(
    store: GraphStore,
    ns: str,
    state: ReembedState,
    source_text: str,
    embedder: Embedder,
) -> _Start:
    """Mark the namespace as being re-embedded (unless resuming) and drop an index of another size.

    Raises:
        EmbeddingMismatch: when the index must be rebuilt but another namespace
            needs another dimension.
        MragentError: when the namespace changed meanwhile.
    """
    target = embedder.identity
    target_text = target.as_text()
    resumed = state.migrating_to == target_text
    restarted_from = state.migrating_to if state.unfinished and not resumed else None
    # The index was (or may have been) dropped for any dimension this namespace is
    # leaving or was heading to; it has to be rebuilt for the target's.
    dimensions = {dimension_of(source_text), target.dimension}
    if state.migrating_to is not None:
        dimensions.add(dimension_of(state.migrating_to))
    rebuild = dimensions != {target.dimension}
    if rebuild:
        refuse_other_dimensions(store, ns, target)

    cursor = state.cursor if resumed else ""
    begin = {"ns": ns, "source": source_text, "target": target_text, "spec": embedder.spec}
    if not resumed and not store.run("reembed_begin", begin):
        raise MragentError(f"namespace {ns!r} changed while starting its re-embedding; re-run")
    if rebuild:
        # Before the first batch: an index of the old dimension must not meet the new
        # vectors (Memgraph refuses them; the others would silently skip them).
        drop_vector_index(store)
    return _Start(resumed, restarted_from, rebuild, cursor)


def _finish(store: GraphStore, ns: str, new_embedder: Embedder, rebuild: bool) -> None:
    """Make the vector index answer for the target, then restamp and unmark the namespace."""
    target = new_embedder.identity
    if rebuild:
        refuse_other_dimensions(store, ns, target)  # a namespace may have appeared meanwhile
        rebuild_vector_index(store, target.dimension)
        await_vector_index(store, ns, new_embedder)
    else:
        store.ensure_schema(target.dimension)
    finish = {"ns": ns, "target": target.as_text(), "spec": new_embedder.spec}
    if not store.run("reembed_finish", finish):
        check_still_reembedding(store, ns, target.as_text())
        raise MragentError(
            f"namespace {ns!r} could not be restamped with {target.as_text()}; re-run"
        )
    # Alias similarities are the names' embeddings': measured again with the new ones.
    relink_namespace(store, ns)
