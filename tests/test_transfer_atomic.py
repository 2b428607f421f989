"""Import is whole or nothing: a failure mid-replace leaves the namespace as it was.

A real store on every engine, wrapped so that one named query fails once it has
run ``after`` times (a database error in the middle of the write).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from mragent.apps.transfer.export import export_memories
from mragent.apps.transfer.importer import import_memories
from mragent.core.errors import QueryError, WriteRefused
from mragent.core.store.base import GraphStore
from mragent.memory.audit import AuditLog
from mragent.memory.audit_records import read_records
from mragent.memory.ingest import namespace_stats
from mragent.memory.space import staging_namespace
from mragent.memory.writer import MemoryWriter
from tests.test_transfer import ANA, Written, all_records, populate


class FailingStore:
    """The real store, except that query ``name`` raises after ``after`` calls
    (inside a transaction too)."""

    def __init__(self, store: GraphStore, name: str, after: int = 0) -> None:
        self._store, self._name, self._left = store, name, after

    def _check(self, name: str) -> None:
        if name == self._name:
            if self._left == 0:
                raise QueryError(name, "injected failure")
            self._left -= 1

    def run(self, name: str, params: dict[str, Any] | None = None, **render: int) -> Any:
        self._check(name)
        return self._store.run(name, params, **render)

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        with self._store.transaction() as tx:
            yield _FailingTransaction(self, tx)

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self._store, attribute)


class _FailingTransaction:
    def __init__(self, owner: FailingStore, tx: Any) -> None:
        self._owner, self._tx = owner, tx

    def run(self, name: str, params: dict[str, Any] | None = None, **render: int) -> Any:
        self._owner._check(name)
        return self._tx.run(name, params, **render)


@pytest.fixture
def other_ns(store: GraphStore) -> Iterator[str]:
    name = f"t-{uuid.uuid4().hex[:12]}"
    yield name
    store.run("delete_namespace", {"ns": name})


@pytest.fixture
def log(audit_log_path: Path) -> AuditLog:
    return AuditLog(audit_log_path)


@pytest.fixture
def exported(store: GraphStore, ns: str, log: AuditLog, tmp_path: Path) -> tuple[Written, Path]:
    written = populate(store, ns, log)
    path = tmp_path / "memories.json"
    export_memories(store, ns, path, scopes=["shared"], include_forgotten=True)
    return written, path


def test_a_failure_mid_replace_leaves_the_namespace_unchanged(
    store: GraphStore, other_ns: str, log: AuditLog, exported: tuple[Written, Path]
) -> None:
    _, path = exported
    mem = MemoryWriter(store, other_ns, log)
    kept = mem.remember("Porto is in Portugal.", principal=ANA, title="Porto")
    before_records, before_stats = all_records(store, other_ns), namespace_stats(store, other_ns)
    failing = FailingStore(store, "ingest_batch")  # versions staged, their tags not yet
    with pytest.raises(QueryError, match="injected failure"):
        import_memories(
            failing,  # type: ignore[arg-type]
            other_ns,
            path,
            principal=ANA,
            audit=log,
            mode="replace",
            confirm_replace=True,
        )
    assert all_records(store, other_ns) == before_records
    assert namespace_stats(store, other_ns) == before_stats
    assert namespace_stats(store, staging_namespace(other_ns))["contents"] == 0
    assert mem.get(kept.id).text == "Porto is in Portugal."
    assert [r.action for r in read_records(log.path)][-2:] == ["import", "abort"]
    # The same import then goes through whole.
    report = import_memories(
        store, other_ns, path, principal=ANA, audit=log, mode="replace", confirm_replace=True
    )
    assert report.written == 8 and kept.id not in all_records(store, other_ns)


def test_a_merge_interrupted_midway_is_completed_by_running_it_again(
    store: GraphStore, ns: str, other_ns: str, log: AuditLog, exported: tuple[Written, Path]
) -> None:
    _, path = exported
    failing = FailingStore(store, "memory_restore_edges")  # versions and tags written, no edges
    with pytest.raises(QueryError, match="injected failure"):
        import_memories(failing, other_ns, path, principal=ANA, audit=log)  # type: ignore[arg-type]
    if store.capabilities.transactions:  # one transaction: nothing was written
        assert namespace_stats(store, other_ns).get("contents", 0) == 0
    import_memories(store, other_ns, path, principal=ANA, audit=log)
    copy, source = all_records(store, other_ns), all_records(store, ns)
    assert {k: v for k, v in copy.items() if v != source[k]} == {}
    for kind in ("contents", "tags", "refs"):
        assert namespace_stats(store, other_ns)[kind] == namespace_stats(store, ns)[kind], kind


def test_a_merge_that_stopped_before_the_tags_links_them_on_the_next_run(
    store: GraphStore, ns: str, other_ns: str, log: AuditLog, exported: tuple[Written, Path]
) -> None:
    if store.capabilities.transactions:
        pytest.skip("one transaction on this engine: nothing is left half written")
    _, path = exported
    failing = FailingStore(store, "ingest_batch")  # whole versions written, no tag yet
    with pytest.raises(QueryError):
        import_memories(failing, other_ns, path, principal=ANA, audit=log)  # type: ignore[arg-type]
    assert namespace_stats(store, other_ns)["refs"] == 0
    import_memories(store, other_ns, path, principal=ANA, audit=log)
    for kind in ("contents", "tags", "refs"):
        assert namespace_stats(store, other_ns)[kind] == namespace_stats(store, ns)[kind], kind


def test_falkordb_refuses_a_second_statement_in_a_transaction(store: GraphStore, ns: str) -> None:
    if store.capabilities.transactions:
        with store.transaction() as tx:
            tx.run("get_space", {"ns": ns})
            tx.run("get_space", {"ns": ns})
        return
    refused = pytest.raises(QueryError, match="one statement per transaction")
    with refused, store.transaction() as tx:
        tx.run("get_space", {"ns": ns})
        tx.run("stamp_space", {"ns": ns, "embedder": "x", "schema": "2"})
    assert store.run("get_space", {"ns": ns}) == []  # the second never ran


@pytest.mark.parametrize("mode", ["merge", "replace"])
def test_forgotten_text_is_refused_on_import_unless_readmitted(
    store: GraphStore, ns: str, other_ns: str, log: AuditLog, tmp_path: Path, mode: str
) -> None:
    mem = MemoryWriter(store, ns, log)
    secret = mem.remember("The vault code of Orion Bank is 4711.", principal=ANA)
    path = tmp_path / "backup.json"
    export_memories(store, ns, path, scopes=["shared"])
    target = MemoryWriter(store, other_ns, log)
    copy = target.remember("The vault code of Orion Bank is 4711.", principal=ANA)
    target.forget(copy.id, principal=ANA, reason="leaked")
    options = {"mode": mode, "confirm_replace": True}
    entries = len(read_records(log.path))
    with pytest.raises(WriteRefused, match="identical text was forgotten"):
        import_memories(store, other_ns, path, principal=ANA, audit=log, **options)  # type: ignore[arg-type]
    assert len(read_records(log.path)) == entries  # refused before any audit record
    assert secret.id not in all_records(store, other_ns)
    import_memories(store, other_ns, path, principal=ANA, audit=log, readmit=True, **options)  # type: ignore[arg-type]
    assert all_records(store, other_ns)[secret.id]["forgotten_at"] is None


def test_a_purge_also_erases_what_a_killed_replace_left_staged(
    store: GraphStore, other_ns: str, log: AuditLog, exported: tuple[Written, Path]
) -> None:
    """A replace killed before its swap leaves the file's versions in the staging
    namespace (kept across restarts): a purge of the namespace erases them too."""
    written, path = exported
    import_memories(store, other_ns, path, principal=ANA, audit=log)
    failing = FailingStore(store, "import_swap")  # staged whole, never swapped in
    with pytest.raises(QueryError, match="injected failure"):
        import_memories(
            failing,  # type: ignore[arg-type]
            other_ns,
            path,
            principal=ANA,
            audit=log,
            mode="replace",
            confirm_replace=True,
        )
    staging = staging_namespace(other_ns)
    assert namespace_stats(store, staging)["contents"] > 0  # the text waits there
    MemoryWriter(store, other_ns, log).purge(written.vault, principal=ANA, reason="a secret")
    rows = store.run("audit_contents", {"ns": staging, "after": "", "limit": 1000})
    assert not [row for row in rows if "4711" in (row["text"] or "")]
