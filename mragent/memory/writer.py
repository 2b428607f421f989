"""Writing to a memory people can trust: remember, correct, forget, purge, review.

:class:`MemoryWriter` is the write side of one namespace, composed of its parts:
the stored versions and write plumbing
(:class:`~mragent.memory.versions.MemoryVersions`), forgetting
(:class:`~mragent.memory.forgetting.MemoryForgetting`) and review
(:class:`~mragent.memory.review.MemoryReview`). Every method takes the
principal making the change (there is no other way in), checks the change
against the memory's rules and the principal's write grants, appends a
hash-chained audit record *before* the database write (write-ahead: the log
never misses a change that happened), and writes each change as one statement,
so it is atomic on every engine.

Rules:

* A new memory is accepted if its principal is a human, a system principal or
  an agent the namespace trusts (:meth:`MemoryWriter.set_trust`); otherwise pending.
* ``correct`` writes a new version (same lineage) and closes the old one's
  record time in the same statement; ``recall --as-of`` reads either side. An
  agent's correction of an *accepted* version is pending and leaves the old one
  current until a human accepts the correction (trusted or not: trust lets an
  agent add memories, not overrule accepted ones).
* ``forget`` and ``purge`` (:mod:`mragent.memory.forgetting`): an agent forgets
  only what it wrote, and a human reviews it; purge is for humans only.
  Identical text is refused afterwards unless re-admitted explicitly.
* Review and trust are for humans only (:mod:`mragent.memory.review`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from mragent.core.corpus import Content
from mragent.core.embedding import Embedder
from mragent.core.errors import ConfigError, WriteRefused
from mragent.core.extract import Extractor
from mragent.core.store.base import GraphStore
from mragent.core.times import check_time
from mragent.core.view import DEFAULT_SCOPE
from mragent.memory.audit import AuditLog
from mragent.memory.forgetting import MemoryForgetting
from mragent.memory.ingest import (
    WriteStamp,
    content_batch,
    forget_key,
    new_id,
    prepare_write,
    refuse_forgotten,
    text_hash,
)
from mragent.memory.principal import Principal
from mragent.memory.records import MemoryRecord
from mragent.memory.requests import WriteRequest
from mragent.memory.review import MemoryReview
from mragent.memory.versions import MemoryVersions

MAX_DEPENDENCIES = 64


@dataclass(frozen=True)
class WriteResult:
    """What a remember or correct did.

    Attributes:
        id: The version written (or the existing identical one).
        lineage: The memory's first version id (stable across corrections).
        trust: The trust state it starts in.
        created: False when identical live text was already remembered.
    """

    id: str
    lineage: str
    trust: str
    created: bool = True
    awaits_review: tuple[str, ...] = ()
    """For an agent's correction of accepted versions: those versions, still current
    until a human accepts the correction."""


@dataclass(frozen=True)
class _Version:
    """One version about to be written: what it holds and what it changes.

    Attributes:
        content: Its key (the new id), text and labels.
        lineage: The memory it is a version of.
        valid: Its valid time (from, to).
        action: ``remember`` or ``correct`` (the audit record's action).
        supersedes: Each older version and the record time it is closed at, or None
            to link it and leave it current (a correction awaiting review).
        depends: Ids of the versions it rests on.
        before: The hash of the version it replaces (the audit record's before).
        detail: The audit record's detail.
        pending: Start it pending whoever writes it.
    """

    content: Content
    lineage: str
    valid: tuple[float | None, float | None]
    action: str
    supersedes: dict[str, float | None] = field(default_factory=dict)
    depends: Sequence[str] = ()
    before: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    pending: bool = False


class MemoryWriter:
    """The write side of one namespace: remember and correct here, the rest by its parts.

    Args:
        store, ns, audit, embedder, extractor, clock: The namespace and what its
            writes use, as :class:`~mragent.memory.versions.MemoryVersions` takes them.

    Attributes:
        versions: Reads stored versions; the plumbing every write shares.
        forgetting: Forget, purge and the queue of agents' forgets.
        review: The review queue, accept, reject and agent trust.
    """

    def __init__(
        self,
        store: GraphStore,
        ns: str,
        audit: AuditLog,
        *,
        embedder: Embedder | None = None,
        extractor: Extractor | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.versions = MemoryVersions(
            store, ns, audit, embedder=embedder, extractor=extractor, clock=clock
        )
        self.forgetting = MemoryForgetting(self.versions)
        self.review = MemoryReview(self.versions, self.forgetting)
        self.store, self.ns, self.audit = store, ns, audit
        # The whole write surface, each method its part's: one door per action.
        self.forget = self.forgetting.forget
        self.purge = self.forgetting.purge
        self.agent_forgets = self.forgetting.agent_forgets
        self.pending = self.review.pending
        self.accept = self.review.accept
        self.reject = self.review.reject
        self.set_trust = self.review.set_trust
        self.records = self.versions.records
        self.get = self.versions.get
        self.history = self.versions.history

    @property
    def embedder(self) -> Embedder:
        """The embedder writes use (resolved from the namespace's stamp on first use)."""
        return self.versions.embedder

    # -- writes ----------------------------------------------------------------------

    def write(self, request: WriteRequest, *, principal: Principal) -> WriteResult:
        """Store a new memory as ``request`` describes it (its scope None: ``shared``).

        Args:
            request: The memory, its fields already checked.
            principal: Who remembers it (decides its starting trust state).

        Raises:
            ConfigError: for a time range that ends before it starts, or too many
                dependencies.
            WriteRefused: when identical text was forgotten (and not
                ``request.readmit``), or a dependency is unknown or forgotten.
            AccessDenied: for a scope outside the principal's write grants.
        """
        scope = request.scope or DEFAULT_SCOPE
        principal.check_write(scope)
        content = request.content(new_id())
        # The duplicate and forgotten-text checks and the write run under the audit
        # log's lock: two processes remembering one text make one memory.
        with self.audit.exclusive():
            same, readmitted = self._identical(content.text, scope, request.readmit)
            if same is not None:
                return same
            deps = self._live_dependencies(request.depends_on, scope)
            now = self.versions.clock()
            version = _Version(
                content,
                lineage=content.key,
                valid=(now if request.valid_from is None else request.valid_from, request.valid_to),
                action="remember",
                depends=deps,
                detail={"readmit": True} if readmitted else {},
            )
            return self._write(version, principal, scope, now)

    def remember(self, text: str, *, principal: Principal, **fields: Any) -> WriteResult:
        """:meth:`write` of ``WriteRequest(text, **fields)``: a shorthand for callers
        that hold the fields as keywords (see :class:`~mragent.memory.requests.WriteRequest`).
        """
        return self.write(WriteRequest(text, **fields), principal=principal)

    def correct(
        self,
        memory_id: str,
        text: str,
        *,
        principal: Principal,
        scope: str = DEFAULT_SCOPE,
        valid_from: float | None = None,
        valid_to: float | None = None,
        readmit: bool = False,
    ) -> WriteResult:
        """Write a new version of a current memory; the old one is superseded.

        The new version keeps the old one's title, source, given cues and tags,
        dependencies and valid time unless given, and starts in the trust state
        its principal writes with. An agent's correction of an accepted version
        starts pending and supersedes it only when a human accepts it
        (``awaits_review`` names it); meanwhile both are current.

        Raises:
            WriteRefused: when ``memory_id`` is unknown, forgotten or superseded, or
                the new text is identical to a forgotten memory (unless ``readmit``).
            AccessDenied: for a scope outside the principal's write grants.
        """
        # The times first, as for a remember; the text once the old version is known.
        check_time(valid_from, "valid_from")
        check_time(valid_to, "valid_to")
        principal.check_write(scope)
        with self.audit.exclusive():
            old = self.get(memory_id, scope)
            if not old.current:
                state = "forgotten" if old.forgotten else "superseded (correct the current version)"
                raise WriteRefused(f"memory {memory_id!r} is {state}")
            # The new version keeps the old one's labels, checked as a new memory's are.
            request = WriteRequest(
                text, scope=scope, title=old.title, source=old.source, tags=old.given_tags,
                cues=old.given_cues, valid_from=valid_from, valid_to=valid_to, readmit=readmit,
            )  # fmt: skip
            content = request.content(new_id())
            _, readmitted = self._identical(content.text, scope, readmit)
            now = self.versions.clock()
            closes = self._superseded_by_correction(old, principal, scope, now)
            version = _correction(old, content, request, closes, readmitted)
            result = self._write(version, principal, scope, now)
        open_ids = tuple(sorted(mid for mid, at in closes.items() if at is None))
        return replace(result, awaits_review=open_ids)

    # -- internals -------------------------------------------------------------------

    def _superseded_by_correction(
        self, old: MemoryRecord, principal: Principal, scope: str, now: float
    ) -> dict[str, float | None]:
        """The versions a correction of ``old`` supersedes, each with the record time it
        closes now, or None where it stays current until a human accepts the correction.

        ``old`` itself, and whatever ``old`` still awaits to supersede when it is a
        pending correction. An agent closes neither an accepted version nor one a
        pending correction awaits; anyone else closes everything now.
        """
        awaiting = [r.id for r in self.records(old.supersedes, scope) if r.current]
        closes: dict[str, float | None] = dict.fromkeys([old.id, *awaiting], now)
        if principal.is_agent:
            for held in [*awaiting, *([old.id] if old.trust == "accepted" else [])]:
                closes[held] = None
        return closes

    def _write(
        self, version: _Version, principal: Principal, scope: str, now: float
    ) -> WriteResult:
        """Write one version as one statement, under its audit record."""
        valid_from, valid_to = version.valid
        if valid_from is not None and valid_to is not None and valid_to <= valid_from:
            raise ConfigError(f"--valid-to ({valid_to}) must be after --valid-from ({valid_from})")
        content = version.content
        space = prepare_write(self.store, self.ns, self.embedder)
        accepted = principal.writes_accepted(space.get("trusted") or []) and not version.pending
        trust = "accepted" if accepted else "pending"
        stamp = WriteStamp(principal, scope, trust, recorded_at=now)
        batch = content_batch(
            content, self.versions.extractor, self.embedder, stamp, str(principal)
        )
        batch.contents[0].update(
            id=content.key, lineage=version.lineage, valid_from=valid_from, valid_to=valid_to
        )
        batch.supersedes.extend(
            {"new": content.key, "old": old, "at": at} for old, at in version.supersedes.items()
        )
        batch.depends.extend({"src": content.key, "dst": dep} for dep in version.depends)
        detail = {**version.detail, "scope": scope, "trust": trust}
        with self.versions.audited(
            principal, version.action, content.key, version.before, text_hash(content.text), detail
        ):
            # One statement (atomic on every engine), run outside an explicit
            # transaction so the store may retry it after a transient deadlock.
            self.store.run("ingest_batch", batch.params(self.ns, scope, self.audit.seal))
            self.versions.settle(
                scope, [tag["name"] for tag in batch.tags], [c["text"] for c in batch.cues]
            )
        return WriteResult(content.key, version.lineage, trust)

    def _identical(self, text: str, scope: str, readmit: bool) -> tuple[WriteResult | None, bool]:
        """The current version already holding ``text``, if any, and whether one was forgotten.

        Raises:
            WriteRefused: when identical text was forgotten and ``readmit`` is not set.
        """
        hashed = text_hash(text)
        readmitted = refuse_forgotten(
            self.store, self.ns, scope, {forget_key(text): 0}, readmit, None, {hashed: 0}
        )
        existing = self.store.run(
            "memory_find_hash", {"ns": self.ns, "scopes": [scope], "hash": hashed}
        )
        for row in existing:
            if row["forgotten_at"] is None and row["superseded_at"] is None:
                same = WriteResult(row["id"], row["lineage"], row["trust"], created=False)
                return same, readmitted
        return None, readmitted

    def _live_dependencies(self, ids: Sequence[str], scope: str) -> list[str]:
        if len(ids) > MAX_DEPENDENCIES:
            raise ConfigError(f"at most {MAX_DEPENDENCIES} dependencies, got {len(ids)}")
        found = {r.id: r for r in self.records(list(ids), scope)} if ids else {}
        for dep in ids:
            record = found.get(dep)
            if record is None:
                raise WriteRefused(f"dependency {dep!r} is not a memory in scope {scope!r}")
            if record.forgotten:
                raise WriteRefused(f"dependency {dep!r} was forgotten")
        return list(dict.fromkeys(ids))


def _correction(
    old: MemoryRecord,
    content: Content,
    request: WriteRequest,
    closes: dict[str, float | None],
    readmitted: bool,
) -> _Version:
    """The version a correction of ``old`` writes: its lineage, dependencies and valid
    time unless the request names one; pending while it awaits a human (``closes``
    leaves a version current)."""
    proposal = None in closes.values()
    return _Version(
        content,
        lineage=old.lineage,
        valid=(
            old.valid_from if request.valid_from is None else request.valid_from,
            old.valid_to if request.valid_to is None else request.valid_to,
        ),
        action="correct",
        supersedes=closes,
        depends=old.depends_on,
        before=old.hash,
        detail={
            "supersedes": old.id,
            **({"awaits_review": True} if proposal else {}),
            **({"readmit": True} if readmitted else {}),
        },
        pending=proposal,
    )
