"""A session: one principal's handle on one namespace.

:class:`MemorySession` holds the writer (made at its first use) and one long-lived
reader per read view; each reader stays current after the session's own writes
and everyone else's by itself (the traversal reports the namespace version it
read, and a reader behind it reads the change feed and answers again), so a
recall is one round trip when nothing changed: the traversal, which brings the
provenance of what it returns too. Results are typed
(:mod:`mragent.facade.results`). The principal was authenticated when the
session was opened (:func:`mragent.facade.open.open_memory`) and is checked
again before every call whenever the credentials file has changed, so a revoked
principal's next read or write is refused; its grants (as the file holds them
now) bound the scopes every method reads and writes.

Every method takes a lock, so one session can serve several threads (the MCP
server's workers): the store connection underneath is used by one at a time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from mragent.core.embedding import Embedder
from mragent.core.errors import ConfigError, EmbeddingMismatch, MragentError, NamespaceMissing
from mragent.core.genome import Genome, load_genome
from mragent.core.store.base import GraphStore
from mragent.core.view import DEFAULT_SCOPE, ReadView, validate_scope
from mragent.facade import arguments as arg
from mragent.facade.results import ContextItem, Forgotten, Recall, Sourced, Written
from mragent.memory.audit import AuditLog
from mragent.memory.auth import Standing
from mragent.memory.principal import Principal
from mragent.memory.reader import MemoryReader, Reconstruction
from mragent.memory.records import MemoryRecord
from mragent.memory.requests import WriteRequest

if TYPE_CHECKING:
    from mragent.memory.writer import MemoryWriter

ViewKey = tuple[tuple[str, ...], bool, float | None]
_Session = TypeVar("_Session", bound="MemorySession")
_Answer = TypeVar("_Answer")
KEPT_READERS = 4


class MemorySession:
    """One principal's view of one namespace: write, read, correct, forget.

    Build with :func:`open_memory`. Usable as a context manager; :meth:`close`
    closes the store if the session opened it.
    """

    def __init__(
        self,
        store: GraphStore,
        ns: str,
        standing: Standing,
        *,
        scope: str = DEFAULT_SCOPE,
        read_scopes: Sequence[str] | None = None,
        genome: Genome | None = None,
        audit: AuditLog | None = None,
        embedder: Embedder | None = None,
        owns_store: bool = False,
    ) -> None:
        self.store, self.ns, self._standing = store, ns, standing
        self.scope = validate_scope(scope)
        self.read_scopes = arg.names(read_scopes, "read_scopes") or (self.scope,)
        self.genome = genome  # None: the namespace's default (MemoryReader.default_genome)
        self._given = embedder  # None: the namespace's stamped embedder
        self._audit = audit or AuditLog()  # made now: a bad log path fails the open
        self._writer_side: MemoryWriter | None = None
        self._readers: dict[ViewKey, MemoryReader] = {}
        self._owns_store = owns_store
        self._lock = threading.RLock()

    @property
    def _memories(self) -> MemoryWriter:
        """The write side (also what reads stored versions), made at its first use.

        A session that only recalls never needs it, and its module brings the whole
        write path (ingest, extraction, the corpus readers) with it.
        """
        if self._writer_side is None:
            from mragent.memory.writer import MemoryWriter

            self._writer_side = MemoryWriter(self.store, self.ns, self._audit, embedder=self._given)
        return self._writer_side

    @property
    def principal(self) -> Principal | None:
        """Who this session acts for, as the credentials file proves it now.

        Raises:
            AccessDenied: when it no longer does (revoked since the session opened).
        """
        return self._standing.current()

    # -- writing -----------------------------------------------------------------------

    def remember(
        self,
        text: str,
        *,
        scope: str | None = None,
        title: str | None = None,
        source: str | None = None,
        cues: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
        depends_on: Sequence[str] = (),
        valid_from: float | None = None,
        valid_to: float | None = None,
        readmit: bool = False,
    ) -> Written:
        """Remember a text: :meth:`write` of the :class:`~mragent.memory.requests.WriteRequest`
        these arguments make (each described there; ``scope`` None: the session's)."""
        return self.write(
            WriteRequest(
                arg.text(text, "text"), scope=arg.optional_text(scope, "scope"),
                title=arg.optional_text(title, "title"), source=arg.optional_text(source, "source"),
                cues=arg.optional_names(cues, "cues"), tags=arg.optional_names(tags, "tags"),
                depends_on=arg.names(depends_on, "depends_on"), valid_from=valid_from,
                valid_to=valid_to, readmit=arg.flag(readmit, "readmit"),
            )
        )  # fmt: skip

    def write(self, request: WriteRequest) -> Written:
        """Write one new memory as the session's principal (the door every surface's
        remember takes: the command line and the MCP tool build the request too).

        Raises:
            ConfigError: without a principal to write as.
            WriteRefused, AccessDenied: as
                :meth:`~mragent.memory.writer.MemoryWriter.write`.
        """
        where = self._scope(request.scope)
        with self._lock:
            result = self._memories.write(replace(request, scope=where), principal=self._writer())
        return Written.of(result, where)

    def correct(
        self,
        memory_id: str,
        text: str,
        *,
        scope: str | None = None,
        valid_from: float | None = None,
        valid_to: float | None = None,
        readmit: bool = False,
    ) -> Written:
        """Write a new version of a memory. An agent's correction of an accepted memory
        waits for a human (``awaits_review``) before it supersedes anything."""
        where = self._scope(scope)
        with self._lock:
            result = self._memories.correct(
                arg.text(memory_id, "memory_id"), arg.text(text, "text"),
                principal=self._writer(), scope=where, valid_from=valid_from,
                valid_to=valid_to, readmit=arg.flag(readmit, "readmit"),
            )  # fmt: skip
        return Written.of(result, where)

    def forget(self, memory_id: str, *, reason: str, scope: str | None = None) -> Forgotten:
        """Forget a memory (every version); an agent forgets only what it wrote."""
        with self._lock:
            ids = self._memories.forget(
                arg.text(memory_id, "memory_id"), principal=self._writer(),
                reason=arg.text(reason, "reason"), scope=self._scope(scope),
            )  # fmt: skip
        return Forgotten(ids=ids)

    # -- reading -----------------------------------------------------------------------

    def recall(
        self,
        question: str,
        *,
        scopes: Sequence[str] | str | None = None,
        include_pending: bool = False,
        as_of: float | None = None,
        genome: Genome | str | None = None,
    ) -> Recall:
        """Answer ``question`` from memory (accepted memories of the read scopes by
        default), with the memories handed to synthesis and their provenance."""
        question = arg.text(question, "question")
        view, chosen = self._view(scopes, include_pending, as_of), self._genome(genome)
        with self._lock:
            rec = self._answer(
                view, lambda reader: reader.reconstruct(question, chosen, provenance=True)
            )
        if rec is None:  # nothing is remembered here: nothing to answer from
            return Recall(question=question, answer=None, abstained=True, sentence="",
                          context=[], timings_ms={})  # fmt: skip
        return _recall(rec, as_of)

    def explain(
        self,
        question: str,
        *,
        scopes: Sequence[str] | str | None = None,
        include_pending: bool = False,
        as_of: float | None = None,
        genome: Genome | str | None = None,
    ) -> dict[str, Any]:
        """How ``question`` is answered: cues, paths and their fates, contents, answer,
        timings, as one JSON document."""
        # The trace views are imported here, not with the session: a recall never uses them.
        from mragent.apps.views.explain import build_trace
        from mragent.apps.views.explain_json import trace_json

        question = arg.text(question, "question")
        view, chosen = self._view(scopes, include_pending, as_of), self._genome(genome)
        with self._lock:
            trace = self._answer(view, lambda reader: build_trace(reader, question, chosen))
        if trace is None:
            raise MragentError(f"namespace {self.ns!r} holds no memories yet")
        return trace_json(trace)

    def get(self, memory_id: str, *, scope: str | None = None) -> MemoryRecord:
        """One stored version by id, tombstones included."""
        memory_id, where = arg.text(memory_id, "memory_id"), self._scope(scope)
        principal = self.principal
        if principal is not None:
            principal.check_read([where])
        with self._lock:
            return self._memories.get(memory_id, where)

    def by_source(
        self,
        prefix: str,
        *,
        ids: Sequence[str] | None = None,
        scopes: Sequence[str] | None = None,
        include_pending: bool = False,
        as_of: float | None = None,
    ) -> list[Sourced]:
        """The versions the read view sees whose source starts with ``prefix``.

        Args:
            prefix: A source prefix (an integration's address space for its items).
            ids: Only these versions (None: every one under the prefix).
            scopes, include_pending, as_of: The read view, as for :meth:`recall`.

        Returns:
            Current versions (at ``as_of``), ordered by source, then record time.
        """
        view = self._view(scopes, include_pending, as_of)
        params = {"ns": self.ns, **view.params(), "prefix": prefix,
                  "ids": None if ids is None else list(ids)}  # fmt: skip
        with self._lock:
            rows = self.store.run("memory_by_source", params)
        return [Sourced.model_validate(row) for row in rows if row["text"] is not None]

    def history(self, memory_id: str, *, scope: str | None = None) -> list[MemoryRecord]:
        """Every version of a memory, oldest first, with trust, valid and record time."""
        memory_id, where = arg.text(memory_id, "memory_id"), self._scope(scope)
        with self._lock:
            return self._memories.history(memory_id, where, principal=self.principal)

    # -- lifecycle ---------------------------------------------------------------------

    def close(self) -> None:
        """Release the store (when the session opened it)."""
        if self._owns_store:
            self.store.close()

    def __enter__(self: _Session) -> _Session:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # -- internals ---------------------------------------------------------------------

    def _writer(self) -> Principal:
        principal = self.principal
        if principal is None:
            raise ConfigError(
                "a write needs a principal: open_memory(..., principal='human:NAME') "
                "(without credentials configured it is taken as given)"
            )
        return principal

    def _scope(self, scope: str | None) -> str:
        return arg.optional_text(scope, "scope") or self.scope

    def _view(
        self, scopes: Sequence[str] | str | None, include_pending: bool, as_of: float | None
    ) -> ReadView:
        read = arg.names(scopes, "scopes") or self.read_scopes
        view = ReadView(read, arg.flag(include_pending, "include_pending"), as_of)
        principal = self.principal
        if principal is not None:
            principal.check_read(view.scopes)
        return view

    def default_genome(self) -> Genome:
        """The genome a recall without one uses: the session's, else the namespace's
        (``real-model`` for a namespace a real model stamped, else ``default``)."""
        if self.genome is not None:
            return self.genome
        with self._lock:
            reader = self._reader(self._view(None, False, None))
        return reader.default_genome if reader is not None else load_genome(None)

    def _genome(self, genome: Genome | str | None) -> Genome | None:
        if genome is None:
            return self.genome
        return genome if isinstance(genome, Genome) else load_genome(genome)

    def _reader(self, view: ReadView) -> MemoryReader | None:
        """The reader of ``view`` (None while the namespace holds nothing); the last
        few views' readers are kept (each holds an index of the namespace, so an
        agent asking at many --as-of times must not keep one per time)."""
        key = (view.scopes, view.include_pending, view.as_of)
        reader = self._readers.pop(key, None)
        if reader is None:
            try:
                reader = MemoryReader(self.store, self.ns, self._given, view=view)
            except NamespaceMissing:
                return None
        self._readers[key] = reader  # most recently used last
        while len(self._readers) > KEPT_READERS:
            self._readers.pop(next(iter(self._readers)))
        return reader

    def _answer(self, view: ReadView, ask: Callable[[MemoryReader], _Answer]) -> _Answer | None:
        """``ask`` the reader of ``view``; None when the namespace holds nothing (never
        written, or deleted since the reader was built)."""
        reader = self._reader(view)
        try:
            return None if reader is None else ask(reader)
        except NamespaceMissing:
            self._forget_reader(view)
            return None
        except EmbeddingMismatch:
            self._forget_reader(view)
            if self._given is not None:
                raise
        # Re-embedded with another model since the reader was built: a session that
        # named no embedder reads with the namespace's new one.
        reader = self._reader(view)
        return None if reader is None else ask(reader)

    def _forget_reader(self, view: ReadView) -> None:
        self._readers.pop((view.scopes, view.include_pending, view.as_of), None)


def _recall(rec: Reconstruction, as_of: float | None) -> Recall:
    items = []
    for item in rec.context.items:
        found = rec.records.get(item.candidate.id)
        items.append(
            ContextItem(
                id=item.candidate.id,
                title=item.candidate.title or None,
                text=item.candidate.text,
                score=round(item.score, 4),
                trust=found.trust_at(as_of) if found else None,  # type: ignore[arg-type]
                scope=found.scope if found else None,
                principal=found.principal if found else None,
                source=found.source if found else None,
                lineage=found.lineage if found else None,
                recorded_at=found.recorded_at if found else None,
            )
        )
    return Recall(
        question=rec.question,
        answer=rec.answer.text,
        abstained=rec.answer.abstained,
        sentence=rec.answer.sentence,
        context=items,
        timings_ms=rec.timings_ms,
    )
