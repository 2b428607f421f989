"""A LangGraph long-term memory store over an mragent session (``mragent[langgraph]``).

:class:`MragentStore` implements LangGraph's ``BaseStore`` (``batch`` and
``abatch`` over get, put, search and list-namespaces operations; ``get``,
``put``, ``search``, ``delete``, ``list_namespaces`` and their async forms come
from the base class)::

    from langgraph.graph import StateGraph
    from mragent import open_memory
    from mragent.integrations.langgraph import MragentStore

    store = MragentStore(open_memory("team", token=agent_token))
    graph = StateGraph(State).add_node(...).compile(store=store)

**Mapping.** One store is one session: one mragent namespace, its write scope
and its read scopes. A LangGraph namespace tuple and key address one memory
inside it (:mod:`mragent.integrations.items`): ``("users", "ana")`` and
``"prefs"`` are the memory whose source is ``langgraph:["users","ana","prefs"]``.
Who writes is the session's authenticated principal, so:

* an agent's ``put`` starts pending and is invisible to ``get`` and ``search``
  (the default read view) until a human accepts it; ``include_pending=True``
  reads pending memories too, as ``recall --include-pending`` does;
* ``put`` of an existing key writes a correction (a new version of the same
  memory; an agent's correction of an accepted one waits for review); ``put`` of
  the value already stored writes nothing;
* ``delete`` forgets the memory (every version), so it is absent from every
  search; an agent forgets only what it wrote. A later ``put`` of the identical
  value at that address is refused unless the store was built ``readmit=True``;
* ``search(query=...)`` is a reconstruction (cue search, traversal, rerank) and
  each item's ``score`` is the memory's final score; the items under the prefix it
  did not reach follow, newest first and without a score, so that ``limit`` and
  ``offset`` page through every item as in LangGraph's own stores. Without a
  query it lists the items under the prefix, newest first. ``filter``, ``limit``
  and ``offset`` apply as LangGraph defines them, after the read view.

Every item is indexed (the memory graph holds every memory), so ``index=`` is
accepted and ignored; TTLs are not supported.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from mragent.core.genome import Genome
from mragent.facade.results import Sourced
from mragent.facade.session import MemorySession
from mragent.integrations.items import (
    SOURCE_PREFIX,
    address_of,
    item_text,
    item_value,
    matches,
    source_of,
    source_prefix,
)

MAX_CONTENT = 20  # the maxContent gene's upper bound: a search hands back at most this many
FORGET_REASON = "deleted through the LangGraph store"


class MragentStore(BaseStore):
    """LangGraph's ``BaseStore`` over one :class:`~mragent.facade.session.MemorySession`.

    Args:
        session: The session to read and write through (its principal, namespace
            and scopes). Left open by :meth:`close` unless ``owns_session``.
        include_pending: Read pending memories too (the session's own and others').
        readmit: Let ``put`` write a value identical to a forgotten one at its address.
        owns_session: Close the session when the store is closed.
    """

    supports_ttl = False

    def __init__(
        self,
        session: MemorySession,
        *,
        include_pending: bool = False,
        readmit: bool = False,
        owns_session: bool = False,
    ) -> None:
        self.session = session
        self.include_pending = include_pending
        self.readmit = readmit
        self._owns_session = owns_session

    # -- BaseStore ---------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations in order; one result per operation (None for a put)."""
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, PutOp):
                self._put(op)
                results.append(None)
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:
                raise TypeError(f"unknown store operation {type(op).__name__}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` on a worker thread (the session serialises its calls)."""
        return await asyncio.to_thread(self.batch, list(ops))

    def close(self) -> None:
        """Close the session if the store owns it."""
        if self._owns_session:
            self.session.close()

    # -- operations --------------------------------------------------------------------

    def _get(self, op: GetOp) -> Item | None:
        _check_labels(op.namespace)
        found = self._latest(op.namespace, op.key, write=False)
        return None if found is None else _item(found, Item)

    def _put(self, op: PutOp) -> None:
        if not op.namespace:
            raise InvalidNamespaceError("Namespace cannot be empty.")
        _check_labels(op.namespace)
        if op.ttl is not None:
            raise NotImplementedError("TTL is not supported by MragentStore; pass ttl=None")
        current = self._latest(op.namespace, op.key, write=True)
        if op.value is None:
            if current is not None:
                self.session.forget(current.id, reason=FORGET_REASON)
            return
        text = item_text(op.namespace, op.key, op.value)
        if current is None:
            self.session.remember(
                text, source=source_of(op.namespace, op.key), readmit=self.readmit
            )
        elif current.text != text:
            self.session.correct(current.id, text, readmit=self.readmit)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        _check_labels(op.namespace_prefix)
        prefix = source_prefix(op.namespace_prefix)
        wanted = op.offset + op.limit

        def passes(sourced: Sourced) -> bool:
            return op.filter is None or matches(item_value(sourced.text), op.filter)

        found = self._reconstruct(op.query, prefix, wanted) if op.query else []
        kept = [_item(s, SearchItem, score) for s, score in found if passes(s)]
        if len(kept) < wanted:
            # LangGraph's stores rank every item under the prefix, so a page is short
            # only at the end: the items the reconstruction did not reach follow,
            # newest first, without a score.
            reached = {s.source for s, _ in found}
            listed = self.session.by_source(prefix, include_pending=self.include_pending)
            newest = sorted(_current(listed).values(), key=lambda s: (-s.recorded_at, s.source))
            rest = [s for s in newest if s.source not in reached and passes(s)]
            kept += [_item(s, SearchItem, None) for s in rest[: wanted - len(kept)]]
        return kept[op.offset : wanted]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        sources = self.session.by_source(SOURCE_PREFIX, include_pending=self.include_pending)
        names: set[tuple[str, ...]] = set()
        for found in sources:
            namespace, _ = address_of(found.source)
            if all(_namespace_matches(c, namespace) for c in op.match_conditions or ()):
                names.add(namespace if op.max_depth is None else namespace[: op.max_depth])
        return sorted(names)[op.offset : op.offset + op.limit]

    # -- internals ---------------------------------------------------------------------

    def _latest(self, namespace: tuple[str, ...], key: str, *, write: bool) -> Sourced | None:
        """The newest visible version at the address. A write looks in the write scope,
        pending versions included (so an agent's second put corrects its first)."""
        source = source_of(namespace, key)
        if write:
            found = self.session.by_source(
                source, scopes=[self.session.scope], include_pending=True
            )
        else:
            found = self.session.by_source(source, include_pending=self.include_pending)
        return _current(found).get(source)

    def _reconstruct(
        self, query: str, prefix: str, wanted: int
    ) -> list[tuple[Sourced, float | None]]:
        """Reconstruct from ``query``; the memories handed to synthesis that lie under
        ``prefix``, best first, each with its score."""
        genome = self.session.default_genome()
        if genome.maxContent < wanted:
            limit = min(MAX_CONTENT, wanted)
            genome = Genome(**{**genome.model_dump(), "maxContent": limit})
        recall = self.session.recall(query, include_pending=self.include_pending, genome=genome)
        scored = [(c.id, c.score) for c in recall.context if (c.source or "").startswith(prefix)]
        if not scored:
            return []
        ids = [memory_id for memory_id, _ in scored]
        by_id = {
            s.id: s
            for s in self.session.by_source(prefix, ids=ids, include_pending=self.include_pending)
        }
        return [(by_id[i], score) for i, score in scored if i in by_id]


def _current(found: list[Sourced]) -> dict[str, Sourced]:
    """The newest version per source. Two versions of one memory are current together
    while an agent's correction of an accepted one awaits review."""
    newest: dict[str, Sourced] = {}
    for s in found:
        kept = newest.get(s.source)
        if kept is None or (s.recorded_at, s.id) > (kept.recorded_at, kept.id):
            newest[s.source] = s
    return newest


def _item(found: Sourced, kind: type[Any], score: float | None = None) -> Any:
    namespace, key = address_of(found.source)
    fields: dict[str, Any] = {
        "namespace": namespace,
        "key": key,
        "value": item_value(found.text),
        "created_at": datetime.fromtimestamp(found.created_at, UTC),
        "updated_at": datetime.fromtimestamp(found.recorded_at, UTC),
    }
    return SearchItem(**fields, score=score) if kind is SearchItem else Item(**fields)


def _check_labels(namespace: tuple[str, ...]) -> None:
    """LangGraph's label rules, for operations handed to :meth:`batch` directly."""
    for label in namespace:
        if not isinstance(label, str) or not label or "." in label or "\x00" in label:
            raise InvalidNamespaceError(f"Invalid namespace label {label!r} in {namespace}")


def _namespace_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = condition.path
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise ValueError(f"unsupported match type {condition.match_type!r}")
    return all(want in ("*", have) for have, want in pairs)


__all__ = ["MragentStore"]
