"""The embedded FalkorDB: one server per home, stale state cleaned."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

from mragent.core.store import embedded


def _start(home: str, queue: multiprocessing.Queue) -> None:
    server = embedded.ensure_running(Path(home))
    queue.put((server.pid, server.port))


def test_concurrent_starts_make_one_server(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_start, args=(str(tmp_path), queue)) for _ in range(4)]
    try:
        for proc in procs:
            proc.start()
        for proc in procs:
            proc.join(60)
        results = {queue.get(timeout=5) for _ in procs}
        assert len(results) == 1
        pid, _port = results.pop()
        assert embedded.status(tmp_path).pid == pid
    finally:
        assert embedded.stop(tmp_path)
    assert embedded.status(tmp_path) is None


def test_stale_pid_and_port_are_replaced(tmp_path: Path) -> None:
    base = tmp_path / "falkordb"
    base.mkdir(parents=True)
    # A pid that is not a redis-server (our own) and a port nobody listens on.
    import os

    (base / "server.json").write_text(
        json.dumps({"pid": os.getpid(), "port": 1, "data_dir": str(base / "data")})
    )
    assert embedded.status(tmp_path) is None
    try:
        server = embedded.ensure_running(tmp_path)
        assert server.pid != os.getpid() and server.port != 1
        assert embedded.status(tmp_path) == server
    finally:
        embedded.stop(tmp_path)


def test_data_persists_across_restart(tmp_path: Path) -> None:
    from mragent.core.corpus import parse_corpus
    from mragent.core.store import open_store
    from mragent.memory.ingest import namespace_stats
    from tests.fixtures import CHAIN, ingest

    try:
        with open_store(None, home=tmp_path) as store:
            ingest(store, parse_corpus(CHAIN), "keep")
        embedded.stop(tmp_path)
        with open_store(None, home=tmp_path) as store:
            assert namespace_stats(store, "keep")["contents"] == 4
    finally:
        embedded.stop(tmp_path)
