"""Writing to a memory people can trust: remember, correct, forget, purge, review.

:class:`Memories` is the write side of one namespace. Every method takes the
principal making the change (there is no other way in), checks the change
against the memory's rules and the principal's write grants, appends a
hash-chained audit record *before* the database write (write-ahead: the log
never misses a change that happened), and writes each change as one statement,
so it is atomic on every engine.

Rules:

* A new memory is accepted if its principal is a human, a system principal or
  an agent the namespace trusts (:meth:`Memories.set_trust`); otherwise pending.
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

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from mragent.core.corpus import Content, Corpus, checked_body, checked_name, checked_names
from mragent.core.errors import ConfigError, WriteRefused
from mragent.core.times import check_time
from mragent.core.view import DEFAULT_SCOPE, validate_scope
from mragent.memory.ingest import (
    WriteStamp,
    build_batches,
    forget_key,
    new_id,
    prepare_write,
    refuse_forgotten,
    text_hash,
)
from mragent.memory.principal import Principal
from mragent.memory.records import MemoryRecord
from mragent.memory.review import MemoryReview

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


class Memories(MemoryReview):
    """The write side of one namespace.

    Constructed as :class:`~mragent.memory.versions.MemoryVersions` (store,
    namespace, audit log; embedder, extractor and clock optional), which also
    reads stored versions; review and trust come from
    :class:`~mragent.memory.review.MemoryReview`.
    """

    # -- writes ----------------------------------------------------------------------

    def remember(
        self,
        text: str,
        *,
        principal: Principal,
        scope: str = DEFAULT_SCOPE,
        title: str | None = None,
        source: str | None = None,
        cues: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
        depends_on: Sequence[str] = (),
        valid_from: float | None = None,
        valid_to: float | None = None,
        readmit: bool = False,
    ) -> WriteResult:
        """Store a new memory.

        Args:
            text: What to remember.
            principal: Who remembers it (decides its starting trust state).
            scope: The scope it lives in.
            title, source: Optional labels; the title also becomes its primary tag.
            cues, tags: Given cues and tags (extracted ones are added to them).
            depends_on: Ids of versions (same scope) this memory rests on;
                rejecting one of them returns this memory to pending.
            valid_from, valid_to: When the fact holds in the world (epoch
                seconds); default from now, open ended.
            readmit: Remember text identical to a forgotten memory anyway.

        Raises:
            ConfigError: on empty or oversized text, a bad scope or time range.
            WriteRefused: when identical text was forgotten (and not
                ``readmit``), or a dependency is unknown or forgotten.
            AccessDenied: for a scope outside the principal's write grants.
        """
        validate_scope(scope)
        valid = _valid_time(valid_from, valid_to)
        principal.check_write(scope)
        memory_id = new_id()
        content = _content(memory_id, text, title, source, tags, cues)
        # The duplicate and forgotten-text checks and the write run under the audit
        # log's lock: two processes remembering one text make one memory.
        with self.audit.exclusive():
            same, readmitted = self._identical(content.text, scope, readmit)
            if same is not None:
                return same
            deps = self._live_dependencies(depends_on, scope)
            return self._remember(content, principal, scope, deps, valid, readmitted)

    def _remember(
        self,
        content: Content,
        principal: Principal,
        scope: str,
        deps: list[str],
        valid: tuple[float | None, float | None],
        readmitted: bool,
    ) -> WriteResult:
        now = self.clock()
        valid_from, valid_to = valid
        return self._write(
            content,
            principal=principal,
            scope=scope,
            lineage=content.key,
            valid=(valid_from if valid_from is not None else now, valid_to),
            now=now,
            supersedes={},
            depends=deps,
            action="remember",
            before=None,
            detail={"readmit": True} if readmitted else None,
        )

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
        valid = _valid_time(valid_from, valid_to)
        principal.check_write(scope)
        with self.audit.exclusive():
            old = self.get(memory_id, scope)
            if not old.current:
                state = "forgotten" if old.forgotten else "superseded (correct the current version)"
                raise WriteRefused(f"memory {memory_id!r} is {state}")
            new = new_id()
            content = _content(new, text, old.title, old.source, old.given_tags, old.given_cues)
            _, readmitted = self._identical(content.text, scope, readmit)
            return self._correct(old, content, principal, scope, valid, readmitted)

    def _correct(
        self,
        old: MemoryRecord,
        content: Content,
        principal: Principal,
        scope: str,
        valid: tuple[float | None, float | None],
        readmitted: bool,
    ) -> WriteResult:
        valid_from, valid_to = valid
        now = self.clock()
        closes = self._superseded_by_correction(old, principal, scope, now)
        proposal = None in closes.values()
        result = self._write(
            content,
            principal=principal,
            scope=scope,
            lineage=old.lineage,
            valid=(
                valid_from if valid_from is not None else old.valid_from,
                valid_to if valid_to is not None else old.valid_to,
            ),
            now=now,
            supersedes=closes,
            depends=old.depends_on,
            action="correct",
            before=old.hash,
            detail={
                "supersedes": old.id,
                **({"awaits_review": True} if proposal else {}),
                **({"readmit": True} if readmitted else {}),
            },
            pending=proposal,
        )
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
        self,
        content: Content,
        *,
        principal: Principal,
        scope: str,
        lineage: str,
        valid: tuple[float | None, float | None],
        now: float,
        supersedes: dict[str, float | None],
        depends: Sequence[str],
        action: str,
        before: str | None,
        detail: dict[str, Any] | None,
        pending: bool = False,
    ) -> WriteResult:
        """Write one version. ``supersedes`` maps each older version to the record time
        it is closed at, or None to link it and leave it current (a correction
        awaiting review); ``pending`` starts the version pending whoever writes it."""
        valid_from, valid_to = valid
        if valid_from is not None and valid_to is not None and valid_to <= valid_from:
            raise ConfigError(f"--valid-to ({valid_to}) must be after --valid-from ({valid_from})")
        space = prepare_write(self.store, self.ns, self.embedder)
        accepted = principal.writes_accepted(space.get("trusted") or []) and not pending
        trust = "accepted" if accepted else "pending"
        stamp = WriteStamp(principal, scope, trust, recorded_at=now)
        corpus = Corpus(contents=[content], name=f"{principal}")
        (batch,) = build_batches(corpus, self.extractor, self.embedder, stamp)
        batch.contents[0].update(
            id=content.key, lineage=lineage, valid_from=valid_from, valid_to=valid_to
        )
        batch.supersedes.extend(
            {"new": content.key, "old": old, "at": at} for old, at in supersedes.items()
        )
        batch.depends.extend({"src": content.key, "dst": dep} for dep in depends)
        with self._audited(
            principal,
            action,
            content.key,
            before,
            text_hash(content.text),
            {
                **(detail or {}),
                "scope": scope,
                "trust": trust,
            },
        ):
            # One statement (atomic on every engine), run outside an explicit
            # transaction so the store may retry it after a transient deadlock.
            self.store.run("ingest_batch", batch.params(self.ns, scope, self.audit.seal))
            self._rank(scope, [tag["name"] for tag in batch.tags], [c["text"] for c in batch.cues])
        return WriteResult(content.key, lineage, trust)

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


def _valid_time(start: object, end: object) -> tuple[float | None, float | None]:
    """The valid time of a write, checked before anything is read or written.

    Raises:
        ConfigError: naming ``valid_from`` or ``valid_to``, for a value that is not
            a finite time (text, nan, inf).
    """
    return check_time(start, "valid_from"), check_time(end, "valid_to")


def _content(
    key: str,
    text: str,
    title: str | None,
    source: str | None,
    tags: Sequence[str] | None,
    cues: Sequence[str] | None,
) -> Content:
    """The content a new version is built from: checked, bounded and normalised as a
    corpus record is (:func:`~mragent.core.corpus.checked_name`, the same limits as
    ingest), given tags and cues kept.

    Raises:
        ConfigError: naming the option, for empty or oversized text or a value
            that cannot be stored.
    """
    try:
        return Content(
            key=key,
            text=checked_body(text, "the memory text"),
            # An empty title or source means none, as an absent option does.
            title=checked_name(title, "--title") if title not in (None, "") else None,
            tags=checked_names(tags, "--tag") if tags is not None else None,
            cues=checked_names(cues, "--cue") if cues is not None else None,
            source=checked_name(source, "--source") if source not in (None, "") else None,
        )
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
