"""Writing to a memory people can trust: remember, correct, forget, purge, review.

:class:`Memories` is the write side of one namespace. Every method takes the
principal making the change (there is no other way in), checks the change
against the memory's rules, appends a hash-chained audit record *before* the
database write (write-ahead: the log never misses a change that happened), and
writes each change as one statement, so it is atomic on every engine.

Rules:

* A new memory is accepted if its principal is a human, a system principal or
  an agent the namespace trusts (:meth:`Memories.set_trust`); otherwise pending.
* ``correct`` writes a new version (same lineage) and closes the old one's
  record time in the same statement; ``recall --as-of`` reads either side.
* ``forget`` tombstones every version of a memory, cuts its edges and deletes
  tags and cues only it gave rise to. Identical text is refused afterwards
  unless re-admitted explicitly. ``purge`` also erases the text, keeping the hash.
* Review needs a human principal other than the memory's writer; rejecting a
  memory returns everything that depends on it, transitively, to pending.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from mragent.core.corpus import MAX_TEXT, Content, Corpus, validate_namespace
from mragent.core.embedding import Embedder, default_embedder
from mragent.core.errors import ConfigError, WriteRefused
from mragent.core.extract import Extractor, RuleExtractor
from mragent.core.store.base import GraphStore
from mragent.core.view import DEFAULT_SCOPE, validate_scope
from mragent.memory.audit import AuditLog
from mragent.memory.audited import audited
from mragent.memory.ingest import WriteStamp, build_batches, new_id, prepare_write, text_hash
from mragent.memory.principal import Principal
from mragent.memory.records import MemoryRecord

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


class Memories:
    """The write side of one namespace.

    Args:
        store: An open graph store.
        ns: The namespace.
        audit: The audit log every write is appended to.
        embedder: Must match the namespace's stamp.
        extractor: Turns texts into cues and tags.
        clock: Epoch seconds (a parameter so tests can write at known times).
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
        validate_namespace(ns)
        self.store, self.ns, self.audit = store, ns, audit
        self.embedder = embedder or default_embedder()
        self.extractor = extractor or RuleExtractor()
        self.clock = clock

    # -- reading records -------------------------------------------------------------

    def records(self, ids: Sequence[str], scope: str = DEFAULT_SCOPE) -> list[MemoryRecord]:
        """The stored versions named by ``ids`` in ``scope`` (tombstones included)."""
        rows = self.store.run(
            "memory_records", {"ns": self.ns, "scopes": [scope], "ids": list(ids)}
        )
        return [MemoryRecord.from_row(row) for row in rows]

    def get(self, memory_id: str, scope: str = DEFAULT_SCOPE) -> MemoryRecord:
        """One version by id.

        Raises:
            WriteRefused: when ``scope`` holds no version with that id.
        """
        found = self.records([memory_id], scope)
        if not found:
            raise WriteRefused(f"no memory {memory_id!r} in namespace {self.ns!r}, scope {scope!r}")
        return found[0]

    def history(self, memory_id: str, scope: str = DEFAULT_SCOPE) -> list[MemoryRecord]:
        """Every version of the memory ``memory_id`` belongs to, oldest first."""
        lineage = self.get(memory_id, scope).lineage
        rows = self.store.run(
            "memory_lineage", {"ns": self.ns, "scopes": [scope], "lineage": lineage}
        )
        return self.records([row["id"] for row in rows], scope)

    def pending(self, scopes: Sequence[str] = (DEFAULT_SCOPE,), limit: int = 100) -> list[dict]:
        """The review queue: current pending versions, oldest first."""
        for scope in scopes:
            validate_scope(scope)
        return self.store.run(
            "memory_pending", {"ns": self.ns, "scopes": list(scopes), "limit": limit}
        )

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
        """
        validate_scope(scope)
        _check_text(text)
        digest = text_hash(text)
        existing = self.store.run(
            "memory_find_hash", {"ns": self.ns, "scopes": [scope], "hash": digest}
        )
        tombstones = [row for row in existing if row["forgotten_at"] is not None]
        if tombstones and not readmit:
            raise WriteRefused(
                f"identical text was forgotten (memory {tombstones[-1]['lineage']}); "
                "re-admit it explicitly (--readmit) to remember it again"
            )
        for row in existing:
            if row["forgotten_at"] is None and row["superseded_at"] is None:
                return WriteResult(row["id"], row["lineage"], row["trust"], created=False)
        deps = self._live_dependencies(depends_on, scope)
        memory_id = new_id()
        now = self.clock()
        content = Content(
            key=memory_id,
            text=text,
            title=title,
            tags=tuple(tags) if tags is not None else None,
            cues=tuple(cues) if cues is not None else None,
            source=source,
        )
        return self._write(
            content,
            principal=principal,
            scope=scope,
            lineage=memory_id,
            valid=(valid_from if valid_from is not None else now, valid_to),
            now=now,
            supersedes=None,
            depends=deps,
            action="remember",
            before=None,
            detail={"readmit": True} if tombstones else None,
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
    ) -> WriteResult:
        """Write a new version of a current memory; the old one is superseded.

        The new version keeps the old one's title, source, given cues and tags,
        dependencies and valid time unless given, and starts in the trust state
        its principal writes with.

        Raises:
            WriteRefused: when ``memory_id`` is unknown, forgotten or superseded.
        """
        old = self.get(memory_id, scope)
        if not old.current:
            state = "forgotten" if old.forgotten else "superseded (correct the current version)"
            raise WriteRefused(f"memory {memory_id!r} is {state}")
        _check_text(text)
        now = self.clock()
        new = new_id()
        content = Content(
            key=new,
            text=text,
            title=old.title,
            tags=tuple(old.given_tags) if old.given_tags is not None else None,
            cues=tuple(old.given_cues) if old.given_cues is not None else None,
            source=old.source,
        )
        return self._write(
            content,
            principal=principal,
            scope=scope,
            lineage=old.lineage,
            valid=(
                valid_from if valid_from is not None else old.valid_from,
                valid_to if valid_to is not None else old.valid_to,
            ),
            now=now,
            supersedes=old.id,
            depends=old.depends_on,
            action="correct",
            before=old.hash,
            detail={"supersedes": old.id},
        )

    def forget(
        self, memory_id: str, *, principal: Principal, reason: str, scope: str = DEFAULT_SCOPE
    ) -> list[str]:
        """Tombstone every version of a memory and remove what only it gave rise to.

        Returns:
            The ids of the versions tombstoned.

        Raises:
            ConfigError: without a reason.
            WriteRefused: for an unknown id.
        """
        if not reason.strip():
            raise ConfigError("--reason is required: say why the memory is forgotten")
        record = self.get(memory_id, scope)
        now = self.clock()
        params = {"ns": self.ns, "scopes": [scope], "lineage": record.lineage}
        with self._audited(
            principal, "forget", record.lineage, record.hash, None, {"reason": reason}
        ):
            rows = self.store.run("memory_forget", {**params, "at": now, "reason": reason})
            # The tags cut now, and those a forget interrupted before pruning cut earlier.
            cut = {t for row in rows for t in [*row["tags"], *(row["cut_tags"] or [])]}
            self._prune_orphans(scope, sorted(cut))
            self._rank(scope, sorted({t for row in rows for t in row["tag_names"]}), [])
        return [row["id"] for row in rows]

    def purge(
        self, memory_id: str, *, principal: Principal, reason: str, scope: str = DEFAULT_SCOPE
    ) -> list[str]:
        """Forget a memory (if not yet) and erase the text of every version.

        The tombstones keep their hash, so identical text stays refused.

        Returns:
            The ids of the versions purged.
        """
        if not reason.strip():
            raise ConfigError("--reason is required: say why the memory is purged")
        record = self.get(memory_id, scope)
        if not record.forgotten:
            self.forget(memory_id, principal=principal, reason=reason, scope=scope)
        params = {"ns": self.ns, "scopes": [scope], "lineage": record.lineage}
        with self._audited(
            principal, "purge", record.lineage, record.hash, None, {"reason": reason}
        ):
            rows = self.store.run("memory_purge", {**params, "at": self.clock()})
        return [row["id"] for row in rows]

    def accept(
        self, memory_id: str, *, principal: Principal, scope: str = DEFAULT_SCOPE
    ) -> MemoryRecord:
        """A human reviewer accepts a version written by someone else."""
        record = self._reviewable(memory_id, principal, scope)
        with self._audited(
            principal,
            "accept",
            record.id,
            record.hash,
            record.hash,
            {"trust": [record.trust, "accepted"]},
        ):
            self.store.run("memory_accept", self._review_params(record, principal))
        return self.get(memory_id, scope)

    def reject(
        self, memory_id: str, *, principal: Principal, scope: str = DEFAULT_SCOPE
    ) -> list[str]:
        """A human reviewer rejects a version; its dependents return to pending.

        Returns:
            The ids demoted from accepted to pending (transitively).
        """
        record = self._reviewable(memory_id, principal, scope)
        # The demotions happen in the same statement as the rejection, so the
        # record names the cascade rather than the ids it will reach.
        with self._audited(
            principal,
            "reject",
            record.id,
            record.hash,
            record.hash,
            {
                "trust": [record.trust, "rejected"],
                "cascade": "dependents accepted -> pending",
            },
        ):
            rows = self.store.run("memory_reject", self._review_params(record, principal))
        return sorted(rows[0]["demoted"]) if rows else []

    def set_trust(self, agent: Principal, *, principal: Principal, trusted: bool) -> list[str]:
        """Let ``agent``'s new memories start accepted (or stop it).

        Raises:
            WriteRefused: unless a human grants it, and only to an agent.
        """
        if not principal.is_human:
            raise WriteRefused(f"only a human principal can change trust, not {principal}")
        if agent.kind != "agent":
            raise ConfigError(f"trust is granted to agents, not {agent}")
        space = prepare_write(self.store, self.ns, self.embedder)
        current = set(space.get("trusted") or [])
        updated = sorted(current | {str(agent)} if trusted else current - {str(agent)})
        action_detail = {"agent": str(agent), "trusted": trusted}
        with self._audited(principal, "trust", str(agent), None, None, action_detail):
            self.store.run("space_trust", {"ns": self.ns, "trusted": updated})
        return updated

    # -- internals -------------------------------------------------------------------

    def _write(
        self,
        content: Content,
        *,
        principal: Principal,
        scope: str,
        lineage: str,
        valid: tuple[float | None, float | None],
        now: float,
        supersedes: str | None,
        depends: Sequence[str],
        action: str,
        before: str | None,
        detail: dict[str, Any] | None,
    ) -> WriteResult:
        valid_from, valid_to = valid
        if valid_from is not None and valid_to is not None and valid_to <= valid_from:
            raise ConfigError(f"--valid-to ({valid_to}) must be after --valid-from ({valid_from})")
        space = prepare_write(self.store, self.ns, self.embedder)
        trust = "accepted" if principal.writes_accepted(space.get("trusted") or []) else "pending"
        stamp = WriteStamp(principal, scope, trust, recorded_at=now)
        corpus = Corpus(contents=[content], name=f"{principal}")
        (batch,) = build_batches(corpus, self.extractor, self.embedder, stamp)
        batch.contents[0].update(
            id=content.key, lineage=lineage, valid_from=valid_from, valid_to=valid_to
        )
        if supersedes:
            batch.supersedes.append({"new": content.key, "old": supersedes, "at": now})
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
            self.store.run("ingest_batch", batch.params(self.ns, scope))
            self._rank(scope, [tag["name"] for tag in batch.tags], [c["text"] for c in batch.cues])
        return WriteResult(content.key, lineage, trust)

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

    def _reviewable(self, memory_id: str, principal: Principal, scope: str) -> MemoryRecord:
        if not principal.is_human:
            raise WriteRefused(f"review needs a human principal, not {principal}")
        record = self.get(memory_id, scope)
        if record.principal == str(principal):
            raise WriteRefused(f"{principal} wrote memory {memory_id!r} and cannot review it")
        if record.forgotten:
            raise WriteRefused(f"memory {memory_id!r} was forgotten")
        return record

    def _review_params(self, record: MemoryRecord, principal: Principal) -> dict[str, Any]:
        return {
            "ns": self.ns,
            "scopes": [record.scope],
            "id": record.id,
            "principal": str(principal),
            "at": self.clock(),
        }

    def _rank(self, scope: str, tags: list[str], cues: list[str]) -> None:
        """Re-rank the edges out of the tags and cues a write touched."""
        params = {"ns": self.ns, "scope": scope}
        if tags:
            self.store.run("rank_links_of_tags", {**params, "names": tags})
            self.store.run("rank_references_of_tags", {**params, "names": tags})
        if cues:
            self.store.run("rank_links_of_cues", {**params, "texts": cues})

    def _prune_orphans(self, scope: str, tags: list[str]) -> None:
        if not tags:
            return
        params = {"ns": self.ns, "scopes": [scope]}
        rows = self.store.run("memory_prune_tags", {**params, "tags": tags})
        cues = sorted({c for row in rows for c in row["cues"]})
        if cues:
            self.store.run("memory_prune_cues", {**params, "cues": cues})

    def _audited(
        self,
        principal: Principal,
        action: str,
        target: str,
        before: str | None,
        after: str | None,
        detail: dict[str, Any] | None,
    ) -> AbstractContextManager[None]:
        return audited(
            self.store, self.audit, self.ns, principal, action, target, before, after, detail
        )


def _check_text(text: str) -> None:
    if not text.strip():
        raise ConfigError("the memory text is empty")
    if len(text) > MAX_TEXT:
        raise ConfigError(f"the memory text has {len(text)} characters; the limit is {MAX_TEXT}")
