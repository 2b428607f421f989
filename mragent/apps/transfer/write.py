"""Writing a checked import plan: replace through a staging namespace, merge in place.

``--mode replace`` must leave the namespace either as it was or as the file says,
on every engine, FalkorDB included (where a transaction holds one statement).
So it writes the whole file into a **staging namespace** first, statement by
statement, and publishes it with **one** statement (``import_swap``) that deletes
the namespace's memories in the file's scopes and renames the staged nodes into
the namespace. A failure before the swap deletes the staging namespace and
leaves the target untouched; the swap itself is atomic.

``--mode merge`` adds versions next to existing ones, whose tags and cues the new
versions must join, so it writes in place: in one transaction where the engine
has them, else statement by statement in an order that never shows a version
with half its state (whole versions first, then their tags and cues, then the
edges between them), and a merge run again after a failure completes it (a
version left without its tags is linked again; see ``_plan`` in
:mod:`mragent.apps.transfer.importer`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from mragent.apps.transfer.export import pages
from mragent.core.errors import MragentError, QueryError
from mragent.core.store.base import GraphStore, Rows
from mragent.memory.ingest import Sealer, forget_key, new_id
from mragent.memory.records import MemoryRecord
from mragent.memory.space import staging_namespace

Run = Callable[[str, dict[str, Any]], Rows]


@dataclass
class Plan:
    """What an import will write, computed before it writes anything.

    Attributes:
        to_write: Versions to create.
        skipped: Versions whose id the namespace already holds (merge).
        batches: scope -> ingest batches of the live versions to link (new ones,
            and in a merge those a failed earlier run left without their tags).
        edges: scope -> SUPERSEDES / DEPENDS_ON edges ``{src, dst, kind}``.
    """

    to_write: list[MemoryRecord]
    skipped: int
    batches: dict[str, list[Any]] = field(default_factory=dict)
    edges: dict[str, list[dict[str, str]]] = field(default_factory=dict)

    @property
    def writes(self) -> bool:
        """Whether the plan writes anything at all."""
        return bool(self.to_write or self.batches or any(self.edges.values()))


def write_replace(store: GraphStore, ns: str, scopes: list[str], plan: Plan, seal: Sealer) -> int:
    """Stage the plan, then swap it in with one statement; return the nodes deleted.

    Args:
        seal: Seals each version for ``ns`` (where it ends up, not the staging).

    Raises:
        MragentError: from the database; the target namespace is unchanged.
    """
    staging = staging_namespace(ns)
    store.run("delete_namespace", {"ns": staging})
    try:
        _stamp_like(store, staging, ns)
        _write_plan(lambda name, params: store.run(name, params), staging, plan, _for(ns, seal))
    except BaseException:
        with suppress(MragentError):
            store.run("delete_namespace", {"ns": staging})
        raise
    rows = store.run("import_swap", {"ns": ns, "staging": staging, "scopes": scopes})
    return int(rows[0]["deleted"]) if rows else 0


def _stamp_like(store: GraphStore, staging: str, ns: str) -> None:
    """Give the staging namespace a MemorySpace with ``ns``'s embedding stamp: every
    write statement bumps its namespace's version and writes nothing without one."""
    space = store.run("get_space", {"ns": ns})[0]  # stamped by prepare_write
    stamp = {
        "embedder": space["embedder"],
        "spec": space["embedder_spec"],
        "schema": space["schema"],
        "uid": new_id(),
    }
    store.run("stamp_space", {"ns": staging, **stamp})


def write_merge(store: GraphStore, ns: str, plan: Plan, seal: Sealer) -> None:
    """Write the plan into ``ns`` beside what it holds (see the module docstring)."""
    if store.capabilities.transactions:
        with store.transaction() as tx:
            _write_plan(lambda name, params: tx.run(name, params), ns, plan, _for(ns, seal))
    else:
        _write_plan(lambda name, params: store.run(name, params), ns, plan, _for(ns, seal))


def _for(ns: str, seal: Sealer) -> Sealer:
    """``seal`` for versions that end up in ``ns`` whatever namespace they are written to."""
    return lambda _written_to, scope, content: seal(ns, scope, content)


def _write_plan(run: Run, ns: str, plan: Plan, seal: Sealer) -> None:
    """Versions whole first, then their tags and cues, then the edges between them."""
    by_scope: dict[str, list[MemoryRecord]] = defaultdict(list)
    for record in plan.to_write:
        by_scope[record.scope].append(record)
    for scope, records in by_scope.items():
        for page in pages(records):
            rows = [record.to_json() for record in page]
            for row in rows:  # edges go through memory_restore_edges
                del row["supersedes"], row["depends_on"]
                row["seal"] = seal(ns, scope, row)
                row["fhash"] = forget_key(row["text"]) if row["text"] is not None else None
            run("memory_restore", {"ns": ns, "scope": scope, "records": rows})
    for scope, batches in plan.batches.items():
        for batch in batches:
            run("ingest_batch", batch.params(ns, scope, seal))
    for scope, edges in plan.edges.items():
        for page in pages(edges):
            rows = run("memory_restore_edges", {"ns": ns, "scope": scope, "edges": page})
            linked = int(rows[0]["linked"]) if rows else 0
            if linked != len(page):
                raise QueryError(
                    "memory_restore_edges",
                    f"linked {linked} of {len(page)} edges in scope {scope!r}: "
                    "a version changed during the import",
                )
