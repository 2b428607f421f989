"""Nothing lost: real processes remembering concurrently into one namespace.

Each of ``WORKERS`` spawned processes opens its own connection and remembers
``PER_WORKER`` distinct texts through :meth:`MemoryWriter.remember`, all appending
to one audit log. Afterwards every memory is there exactly once, readable by id,
and the audit log verifies against the namespace's anchor with one record per
memory. Run against the embedded FalkorDB and, when reachable, Neo4j.
"""

from __future__ import annotations

import json
import multiprocessing
import time
import uuid
from collections import Counter
from multiprocessing.synchronize import Event
from pathlib import Path

import pytest

from mragent.core.store import open_store
from mragent.core.view import ReadView
from mragent.memory.audit import AuditLog
from mragent.memory.audit_records import read_records, verify
from mragent.memory.principal import Principal
from mragent.memory.writer import MemoryWriter

WORKERS = 4
PER_WORKER = 15
START_TIMEOUT = 120.0
JOIN_TIMEOUT = 300.0


def _text(worker: int, i: int) -> str:
    return f"Worker {worker} noted fact number {i}: crate {worker * 1000 + i} is in bay {i}."


def _writer(url: str, ns: str, audit_path: str, out_path: str, worker: int, start: Event) -> None:
    """One process: connect, wait for the others, remember PER_WORKER texts."""
    principal = Principal("human", f"writer{worker}")
    with open_store(url) as store:
        memories = MemoryWriter(store, ns, AuditLog(Path(audit_path)))
        start.wait(START_TIMEOUT)  # every writer begins at once: the first writes race too
        ids = [
            memories.remember(_text(worker, i), principal=principal).id for i in range(PER_WORKER)
        ]
    Path(out_path).write_text(json.dumps(ids))


def _engine_url(engine: str, engine_urls: dict[str, str | None]) -> str:
    url = engine_urls[engine]
    if url is None:
        pytest.skip(f"{engine} not reachable")
    return url


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["falkordb", "neo4j"])
def test_concurrent_writers_lose_nothing(
    engine: str, engine_urls: dict[str, str | None], tmp_path: Path
) -> None:
    url = _engine_url(engine, engine_urls)
    ns = f"t-conc-{uuid.uuid4().hex[:10]}"
    audit_path = tmp_path / "shared-audit.jsonl"
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    outs = [tmp_path / f"ids-{w}.json" for w in range(WORKERS)]
    procs = [
        ctx.Process(target=_writer, args=(url, ns, str(audit_path), str(outs[w]), w, start))
        for w in range(WORKERS)
    ]
    try:
        for proc in procs:
            proc.start()
        time.sleep(1.0)  # let every process import and connect before the start signal
        began = time.perf_counter()
        start.set()
        for proc in procs:
            proc.join(JOIN_TIMEOUT)
        elapsed = time.perf_counter() - began
        assert [proc.exitcode for proc in procs] == [0] * WORKERS
        print(f"\n{engine}: {WORKERS} processes x {PER_WORKER} memories in {elapsed:.2f} s")

        written = [mid for out in outs for mid in json.loads(out.read_text())]
        total = WORKERS * PER_WORKER
        assert len(written) == len(set(written)) == total
        with open_store(url) as store:
            rows = store.run(
                "memory_ids", {"ns": ns, "scopes": ["shared"], "include_forgotten": True}
            )
            assert Counter(row["id"] for row in rows) == Counter(written)
            snapshot = store.run("content_snapshot", {"ns": ns, **ReadView().params()})
            texts = Counter(row["text"] for row in snapshot)
            expected = Counter(_text(w, i) for w in range(WORKERS) for i in range(PER_WORKER))
            assert texts == expected  # each text exactly once, none lost, none doubled
            memories = MemoryWriter(store, ns, AuditLog(audit_path))
            records = {r.id: r for r in memories.records(written)}
            assert set(records) == set(written)
            assert all(r.trust == "accepted" and r.current for r in records.values())
            spaces = [row for row in store.run("namespaces", {}) if row["ns"] == ns]
            assert len(spaces) == 1, spaces  # one MemorySpace, one anchor
            anchor = (int(spaces[0]["audit_seq"]), spaces[0]["audit_head"])
        report = verify(audit_path, {ns: anchor})
        assert report.ok, report.problems
        assert not report.warnings, report.warnings
        assert report.records == total and anchor[0] == total
        logged = read_records(audit_path)
        assert Counter(r.target for r in logged if r.action == "remember") == Counter(written)
    finally:
        for proc in procs:
            if proc.is_alive():
                proc.kill()
        with open_store(url) as store:
            store.run("delete_namespace", {"ns": ns})


SAME_TEXT = "The night shift keeps the spare keys in locker 31."
SAME_WRITERS = 8


def _same_writer(
    url: str, ns: str, audit_path: str, out_path: str, worker: int, start: Event
) -> None:
    """One process: remember the one text every other process remembers too."""
    with open_store(url) as store:
        memories = MemoryWriter(store, ns, AuditLog(Path(audit_path)))
        start.wait(START_TIMEOUT)
        result = memories.remember(SAME_TEXT, principal=Principal("human", f"same{worker}"))
    Path(out_path).write_text(json.dumps([result.id, result.created]))


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["falkordb", "neo4j"])
def test_identical_concurrent_writes_make_one_memory(
    engine: str, engine_urls: dict[str, str | None], tmp_path: Path
) -> None:
    url = _engine_url(engine, engine_urls)
    ns = f"t-same-{uuid.uuid4().hex[:10]}"
    audit_path = tmp_path / "shared-audit.jsonl"
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    outs = [tmp_path / f"same-{w}.json" for w in range(SAME_WRITERS)]
    procs = [
        ctx.Process(target=_same_writer, args=(url, ns, str(audit_path), str(outs[w]), w, start))
        for w in range(SAME_WRITERS)
    ]
    try:
        for proc in procs:
            proc.start()
        time.sleep(1.0)
        start.set()
        for proc in procs:
            proc.join(JOIN_TIMEOUT)
        assert [proc.exitcode for proc in procs] == [0] * SAME_WRITERS
        results = [json.loads(out.read_text()) for out in outs]
        assert len({mid for mid, _ in results}) == 1  # every process got the same memory
        assert sum(created for _, created in results) == 1
        with open_store(url) as store:
            rows = store.run(
                "memory_ids", {"ns": ns, "scopes": ["shared"], "include_forgotten": True}
            )
            assert len(rows) == 1
            memories = MemoryWriter(store, ns, AuditLog(audit_path))
            memories.forget(results[0][0], principal=Principal("human", "ana"), reason="test")
            snapshot = store.run("content_snapshot", {"ns": ns, **ReadView().params()})
            assert SAME_TEXT not in {row["text"] for row in snapshot}
        assert [r.action for r in read_records(audit_path)] == ["remember", "forget"]
    finally:
        for proc in procs:
            if proc.is_alive():
                proc.kill()
        with open_store(url) as store:
            store.run("delete_namespace", {"ns": ns})
