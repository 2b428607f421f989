"""Neo4j and Memgraph over Bolt, through the official ``neo4j`` driver."""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import neo4j
import neo4j.exceptions
import neo4j.graph

from mragent.core.engines import Engine, detect
from mragent.core.errors import BackendUnavailable, QueryError
from mragent.core.store.base import Capabilities, GraphStore, Rows, Transaction

_DRIVER_ERRORS = (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError)
_GRAPH_VALUES = (neo4j.graph.Node, neo4j.graph.Relationship, neo4j.graph.Path)
TRANSIENT_RETRIES = 8  # a single statement is retried on a transient error this many times
T = TypeVar("T")


def _translate(name: str, exc: Exception) -> Exception:
    if isinstance(exc, neo4j.exceptions.ServiceUnavailable | neo4j.exceptions.SessionExpired):
        return BackendUnavailable(f"lost the Bolt server: {exc}")
    message = getattr(exc, "message", None) or str(exc)
    return QueryError(name, str(message).splitlines()[0] if message else type(exc).__name__)


def _rows(result: neo4j.Result) -> Rows:
    """The records of ``result`` as dicts, read positionally.

    ``Record.data()`` converts each value recursively and costs about 20 times what
    zipping the keys with the record's values does. The product's queries return
    plain values; only a statement returning nodes, relationships or paths (a
    Browser view run as text) takes the converting path, so those still arrive as
    plain lists and dicts.
    """
    keys = result.keys()
    records = list(result)
    if records and any(isinstance(value, _GRAPH_VALUES) for value in records[0]):
        return [record.data() for record in records]
    return [dict(zip(keys, record, strict=True)) for record in records]


class _BoltTransaction(Transaction):
    def __init__(self, store: BoltStore, tx: neo4j.Transaction) -> None:
        self._store = store
        self._tx = tx

    def run(self, name: str, params: dict[str, Any] | None = None, **render: int | str) -> Rows:
        text, params = self._store.prepare(name, params, render)
        try:
            return _rows(self._tx.run(text, params))
        except _DRIVER_ERRORS as exc:
            raise _translate(name, exc) from None


class BoltStore(GraphStore):
    """A store on a Bolt server: Neo4j (5.26+) or Memgraph.

    Args:
        uri: A ``bolt://`` or ``neo4j://`` URI (no credentials in it).
        auth: ``(user, password)`` or None for a server without auth.
        engine: The engine the URL named (the server must be it), or None to detect
            it from the server's agent string (:func:`mragent.core.engines.detect`).
        database: A database name, for an engine that has named databases
            (ignored by the others).

    Statements whose query file declares ``render: chunk`` (ranks, namespace deletes
    and migrations on Neo4j) run as ``CALL { ... } IN TRANSACTIONS``: they work only
    through :meth:`run` (an auto-commit statement), never inside :meth:`transaction`.
    """

    def __init__(
        self,
        uri: str,
        auth: tuple[str, str] | None,
        engine: Engine | None = None,
        database: str | None = None,
    ) -> None:
        self.url = uri
        self._open_session: neo4j.Session | None = None
        try:
            # Schema-less reads of absent labels are normal here; their warnings are noise.
            self._driver = neo4j.GraphDatabase.driver(
                uri, auth=auth, notifications_min_severity="OFF"
            )
            info = self._driver.get_server_info()
        except _DRIVER_ERRORS as exc:
            raise BackendUnavailable(f"Bolt server at {uri} is not reachable: {exc}") from None
        except ValueError as exc:
            raise BackendUnavailable(f"bad Bolt URI {uri!r}: {exc}") from None
        agent = info.agent or ""
        chosen = detect("bolt", agent)
        if engine is not None and engine is not chosen:
            # Otherwise the first statement in the other dialect fails as a syntax error.
            self._driver.close()
            raise BackendUnavailable(
                f"the server at {uri} is {chosen.name} (agent {agent!r}), not the"
                f" {engine.name} its URL's scheme named: use"
                f" {' or '.join(s + '://' for s in chosen.schemes)} or bolt://"
            )
        self._database = database if chosen.databases else None
        version = agent.split("/", 1)[-1]
        if chosen.version_query:
            version = self._queried_version(chosen.version_query) or version
        self.capabilities = Capabilities.of(chosen, version)

    def _queried_version(self, query: str) -> str:
        """The ``v`` of the first row ``query`` returns; "" when it fails or returns none."""
        try:
            records, _, _ = self._driver.execute_query(query, database_=self._database)
        except _DRIVER_ERRORS:
            return ""
        return str(records[0]["v"]) if records else ""

    def _session(self) -> neo4j.Session:
        # One long-lived session: opening a session per query costs a few
        # milliseconds of routing and database resolution on every call.
        if self._open_session is None or getattr(self._open_session, "_closed", False):
            if self._database:
                self._open_session = self._driver.session(database=self._database)
            else:
                self._open_session = self._driver.session()
        return self._open_session

    def _execute(self, name: str, text: str, params: dict[str, Any]) -> Rows:
        return self._retrying(name, lambda: _rows(self._session().run(text, params)))

    def _retrying(self, name: str, work: Callable[[], T]) -> T:
        """Run one auto-commit statement, again after a transient error.

        A deadlock between concurrent writers (MERGEs from several hosts, schema
        statements from several first connections) rolls the statement back, so
        running it again is safe.
        """
        for attempt in range(TRANSIENT_RETRIES):
            try:
                return work()
            except neo4j.exceptions.TransientError:
                self._reset_session()
                time.sleep(random.uniform(0, 0.05 * 2**attempt))
            except _DRIVER_ERRORS as exc:
                self._reset_session()
                raise _translate(name, exc) from None
        try:
            return work()
        except _DRIVER_ERRORS as exc:
            self._reset_session()
            raise _translate(name, exc) from None

    def _reset_session(self) -> None:
        if self._open_session is not None:
            with contextlib.suppress(*_DRIVER_ERRORS):
                self._open_session.close()
        self._open_session = None

    @contextmanager
    def _transaction(self) -> Iterator[Transaction]:
        try:
            with self._session().begin_transaction() as tx:
                yield _BoltTransaction(self, tx)
                tx.commit()
        except _DRIVER_ERRORS as exc:
            self._reset_session()
            raise _translate("transaction", exc) from None

    def _execute_schema(self, name: str, statement: str) -> None:
        try:
            self._retrying(name, lambda: self._session().run(statement).consume())
        except QueryError as exc:
            # Memgraph lacks IF NOT EXISTS for some index kinds.
            if "already exists" not in str(exc).lower():
                raise

    def erase_residue(self) -> None:
        """Nothing to clear from here: Neo4j Community writes no query log (Enterprise's
        must be configured without parameters) and Memgraph keeps none; both engines'
        transaction logs age out under their own retention settings."""

    def close(self) -> None:
        self._driver.close()
