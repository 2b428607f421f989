"""FalkorDB over RESP: the ``redis`` client (hiredis) and the compact reply read here."""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any
from urllib.parse import quote

import redis.exceptions
from redis.connection import Connection

from mragent.core.engines.falkordb import ENGINE
from mragent.core.errors import BackendUnavailable, QueryError
from mragent.core.store.base import Capabilities, GraphStore, Rows, Statement, Transaction
from mragent.core.store.falkordb_params import params_header
from mragent.core.store.falkordb_reply import UnreadableReply, reply_rows
from mragent.core.store.peer import ImpostorListener, check_server

GRAPH_NAME = "mragent"


PERSIST_TIMEOUT_S = 120.0
TELEMETRY_LAG_S = 1.5
# What a bulk load pauses: an AOF rewrite and a snapshot each fork the server and write
# the whole database once more (a rewrite forked a 6 GB server in the middle of a
# million-content ingest). Neither is durability: ``appendfsync`` is left as configured,
# so every acknowledged write is in the append-only file on disk all the same.
BULK_PAUSED = {"auto-aof-rewrite-percentage": "0", "save": ""}
# The settings a bulk load paused and the process holding the window ("host pid"): the
# next store opened restores them when that process died inside it (a CONFIG SET is
# not persisted, so a restarted server has its configured values anyway).
BULK_KEY = "mragent:bulk-load"


class _StatementTransaction(Transaction):
    """FalkorDB has no multi-statement transactions (MULTI/EXEC does not roll back
    the statements before a failing one): each statement is atomic on its own.

    So this transaction takes one statement, and refuses a second before it runs
    rather than pretend the two would commit or roll back together.
    """

    def __init__(self, store: FalkorStore) -> None:
        self._store = store
        self._used: str | None = None

    def run(self, name: str, params: dict[str, Any] | None = None, **render: int | str) -> Rows:
        if self._used is not None:
            raise QueryError(
                name,
                f"FalkorDB runs one statement per transaction ({self._used!r} ran already); "
                "write several statements elsewhere and publish them with one",
            )
        self._used = name
        return self._store.run(name, params, **render)


def _checked(pid: int) -> Callable[[Connection], None]:
    """A redis connection hook that checks the peer is process ``pid``, then
    authenticates (what the connection does by itself without a hook)."""

    def connect(connection: Connection) -> None:
        sock = connection._sock
        try:
            if not isinstance(sock, socket.socket):
                raise ImpostorListener("no socket to check before authenticating")
            check_server(sock, pid)
        except ImpostorListener as exc:
            raise redis.exceptions.ConnectionError(str(exc)) from None
        connection.on_connect()

    return connect


class FalkorStore(GraphStore):
    """A store on one FalkorDB graph.

    Args:
        host: Server host.
        port: Server port.
        graph: Graph (key) name; namespaces live inside it.
        password: Optional server password.
        server_pid: The embedded server's pid: every connection, the first and each
            reconnection, checks that this process is what answers on ``port``
            before it sends the password (:mod:`mragent.core.store.peer`).
    """

    def __init__(
        self,
        host: str,
        port: int,
        graph: str = GRAPH_NAME,
        password: str | None = None,
        server_pid: int | None = None,
    ) -> None:
        self.url = f"falkordb://{host}:{port}"
        self._secret = f"falkordb://:{quote(password, safe='')}@{host}:{port}" if password else ""
        # redis calls the hook with the connection (its annotation says with nothing).
        hook: Any = _checked(server_pid) if server_pid is not None else None
        try:
            # Undecoded replies: hiredis parses a vector's numbers in C
            # (:mod:`~mragent.core.store.falkordb_reply`).
            self._db = redis.Redis(
                host=host,
                port=port,
                password=password,
                socket_timeout=300,
                socket_connect_timeout=5,
                redis_connect_func=hook,
            )
            modules = self._db.module_list()
        except redis.exceptions.RedisError as exc:
            raise BackendUnavailable(f"FalkorDB at {self.url} is not reachable: {exc}") from None
        version = ""
        for module in modules:
            if module.get(b"name") == b"graph":
                raw = int(module.get(b"ver", 0))
                version = f"{raw // 10000}.{raw // 100 % 100}.{raw % 100}"
        if not version:
            raise BackendUnavailable(f"{self.url} answers but has no FalkorDB module loaded")
        self._graph_name = graph
        self.capabilities = Capabilities.of(ENGINE, version)
        self._recover_bulk_load()

    @property
    def secret_url(self) -> str:
        return self._secret or self.url

    def _encode(self, statement: Statement) -> Statement:
        # FalkorDB takes its parameters as Cypher literals in front of the query text.
        header = params_header(statement.params)
        return Statement(statement.name, header + statement.text, {})

    def _execute(self, name: str, text: str, params: dict[str, Any]) -> Rows:
        try:
            return reply_rows(self._query(params_header(params) + text))
        except redis.exceptions.ConnectionError as exc:
            raise BackendUnavailable(f"lost FalkorDB at {self.url}: {exc}") from None
        except (redis.exceptions.RedisError, UnreadableReply) as exc:
            raise QueryError(name, str(exc).splitlines()[0]) from None

    def _query(self, text: str) -> list[Any]:
        """One ``GRAPH.QUERY`` on the graph, its compact reply as hiredis reads it."""
        reply: list[Any] = self._db.execute_command(
            "GRAPH.QUERY", self._graph_name, text, "--compact"
        )
        return reply

    @contextmanager
    def _transaction(self) -> Iterator[Transaction]:
        yield _StatementTransaction(self)

    def _execute_schema(self, name: str, statement: str) -> None:
        try:
            reply_rows(self._query(statement))
        except redis.exceptions.ResponseError as exc:
            # FalkorDB has no IF NOT EXISTS; an existing index is the goal state.
            if "already indexed" not in str(exc):
                raise QueryError(name, str(exc).splitlines()[0]) from None

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """Pause AOF rewrites and snapshots (:data:`BULK_PAUSED`) for the window.

        The server-wide settings are restored on exit, also on error; if this process
        is killed inside the window, by the next store opened on the server
        (:meth:`_recover_bulk_load`). One window at a time: a load that finds another
        one open pauses nothing more and restores nothing. A server that refuses
        ``CONFIG`` (a managed one) keeps its settings.
        """
        command = self._db.execute_command
        try:
            paused = {name: self._setting(name) for name in BULK_PAUSED}
            state = json.dumps({"holder": _holder(), "settings": paused})
            held = bool(command("SET", BULK_KEY, state, "NX"))
        except (redis.exceptions.RedisError, KeyError):
            held = False
        if held:
            try:
                for name, value in BULK_PAUSED.items():
                    command("CONFIG", "SET", name, value)
            except redis.exceptions.RedisError:  # allowed to read the settings, not to set them
                with suppress(redis.exceptions.RedisError):
                    self._restore(paused)  # what was set, back; the window closed
                held = False
        if not held:
            yield
            return
        try:
            yield
        finally:
            self._restore(paused)

    def _setting(self, name: str) -> str:
        """A server setting's value, as ``CONFIG GET`` reports it."""
        reply = self._db.execute_command("CONFIG", "GET", name)  # {name: value}
        value: bytes = reply[name.encode()]
        return value.decode()

    def _restore(self, settings: dict[str, str]) -> None:
        """Set the settings a bulk load paused back, then close its window."""
        command = self._db.execute_command
        for name, value in settings.items():
            command("CONFIG", "SET", name, value)
        command("DEL", BULK_KEY)

    def _recover_bulk_load(self) -> None:
        """Restore what a bulk load paused when the process holding the window died
        (killed inside it): its settings must not stay relaxed on a running server."""
        with suppress(redis.exceptions.RedisError, ValueError, KeyError, TypeError):
            raw = self._db.execute_command("GET", BULK_KEY)
            if raw is None:
                return
            state = json.loads(raw)
            if not _holder_alive(str(state["holder"])):
                self._restore({str(k): str(v) for k, v in state["settings"].items()})

    def erase_residue(self) -> None:
        """Drop the copies FalkorDB keeps besides the graph, then rewrite its files.

        The per-graph telemetry stream (off on the embedded server; an external
        server may have it on) and FalkorDB's slow log hold query parameters; the
        append-only file holds every write command until it is rewritten, and the
        last snapshot what was stored when it was taken. The rewrite and the new
        snapshot are waited for, so a purge is on disk when it returns. An
        external server may refuse these commands; what it keeps is then its
        operator's to clear.
        """
        command = self._db.execute_command
        telemetry = f"telemetry{{{self._graph_name}}}"
        with suppress(redis.exceptions.RedisError):
            if command("DEL", telemetry):
                # It is on: the last queries' entries are filed about a second late.
                time.sleep(TELEMETRY_LAG_S)
                command("DEL", telemetry)
        with suppress(redis.exceptions.RedisError):
            command("GRAPH.SLOWLOG", self._graph_name, "RESET")
        for start, busy in (
            ("BGREWRITEAOF", "aof_rewrite_in_progress"),
            ("BGSAVE", "rdb_bgsave_in_progress"),
        ):
            try:
                self._wait_persistence(busy)
                command(start)
                self._wait_persistence(busy)
            except redis.exceptions.RedisError:
                continue

    def _wait_persistence(self, busy: str) -> None:
        """Wait until no background rewrite or save of the kind ``busy`` names runs."""
        deadline = time.monotonic() + PERSIST_TIMEOUT_S
        info = self._db.info("persistence")
        # A rewrite asked for while a save runs is scheduled, not started: wait for both.
        while int(info.get(busy, 0)) or int(info.get("aof_rewrite_scheduled", 0)):
            if time.monotonic() > deadline:
                raise BackendUnavailable(f"FalkorDB at {self.url}: {busy} did not finish")
            time.sleep(0.05)
            info = self._db.info("persistence")

    def close(self) -> None:
        self._db.close()


def _holder() -> str:
    """This process, as a bulk load window names its holder."""
    return f"{socket.gethostname()} {os.getpid()}"


def _holder_alive(holder: str) -> bool:
    """Whether the process a window names may still hold it: a process of this host
    that no longer exists does not; one of another host cannot be checked, so it may."""
    host, _, pid = holder.rpartition(" ")
    if host != socket.gethostname():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
