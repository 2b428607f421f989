"""The plumbing every write to a namespace shares: its stored versions, the audit, ranks.

:class:`MemoryVersions` is the part of :class:`~mragent.memory.writer.MemoryWriter`
the others are built on (:class:`~mragent.memory.forgetting.MemoryForgetting`,
:class:`~mragent.memory.review.MemoryReview`): it holds the namespace, its store,
audit log, embedder, extractor and clock, reads stored versions and ties a write
to its audit record.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from mragent.core.corpus import validate_namespace
from mragent.core.embedding import Embedder
from mragent.core.errors import WriteRefused
from mragent.core.extract import Extractor, RuleExtractor
from mragent.core.store.base import GraphStore
from mragent.core.view import DEFAULT_SCOPE
from mragent.memory.aliases import link_aliases
from mragent.memory.audit import AuditLog
from mragent.memory.audited import audited
from mragent.memory.principal import Principal
from mragent.memory.ranks import rank_touched
from mragent.memory.records import MemoryRecord
from mragent.memory.space import space_embedder


class MemoryVersions:
    """One namespace's stored versions, and what every write to it needs.

    Args:
        store: An open graph store.
        ns: The namespace.
        audit: The audit log every write is appended to.
        embedder: Must match the namespace's stamp (default: the stamped one, or
            the default embedder for a new namespace).
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
        self._embedder = embedder
        self.extractor = extractor or RuleExtractor()
        self.clock = clock

    @property
    def embedder(self) -> Embedder:
        """The embedder writes use (resolved from the namespace's stamp on first use)."""
        if self._embedder is None:
            rows = self.store.run("get_space", {"ns": self.ns})
            self._embedder = space_embedder(self.ns, rows[0] if rows else None, None, "write")
        return self._embedder

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

    def history(
        self, memory_id: str, scope: str = DEFAULT_SCOPE, *, principal: Principal | None = None
    ) -> list[MemoryRecord]:
        """Every version of the memory ``memory_id`` belongs to, oldest first.

        Raises:
            AccessDenied: when ``principal`` may not read ``scope``.
        """
        if principal is not None:
            principal.check_read([scope])
        lineage = self.get(memory_id, scope).lineage
        rows = self.store.run(
            "memory_lineage", {"ns": self.ns, "scopes": [scope], "lineage": lineage}
        )
        return self.records([row["id"] for row in rows], scope)

    def audited(
        self,
        principal: Principal,
        action: str,
        target: str,
        before: str | None,
        after: str | None,
        detail: dict[str, Any] | None,
    ) -> AbstractContextManager[None]:
        """The block a write runs in: its audit record first, the namespace's version
        and audit anchor moved at the end (:func:`~mragent.memory.audited.audited`)."""
        return audited(
            self.store, self.audit, self.ns, principal, action, target, before, after, detail
        )

    def rank(self, scope: str, tags: list[str], cues: list[str]) -> None:
        """Re-rank the edges out of the tags and cues a write touched."""
        rank_touched(self.store, self.ns, scope, tags, cues)

    def settle(self, scope: str, tags: list[str], cues: list[str]) -> None:
        """After a write added tags and cues: link its tags' aliases, re-rank."""
        link_aliases(self.store, self.ns, scope, tags)
        rank_touched(self.store, self.ns, scope, tags, cues)
