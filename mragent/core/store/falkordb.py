"""FalkorDB over RESP, through the ``falkordb`` client."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import redis.exceptions
from falkordb import FalkorDB

from mragent.core.errors import BackendUnavailable, QueryError
from mragent.core.store.base import Capabilities, GraphStore, Rows, Transaction

GRAPH_NAME = "mragent"


class _StatementTransaction(Transaction):
    """FalkorDB has no multi-statement transactions: each statement is atomic.

    The product therefore writes every batch as one statement; this object only
    keeps the interface uniform (see :meth:`GraphStore.transaction`).
    """

    def __init__(self, store: FalkorStore) -> None:
        self._store = store

    def run(self, name: str, params: dict[str, Any] | None = None, **render: int | str) -> Rows:
        return self._store.run(name, params, **render)


class FalkorStore(GraphStore):
    """A store on one FalkorDB graph.

    Args:
        host: Server host.
        port: Server port.
        graph: Graph (key) name; namespaces live inside it.
        password: Optional server password.
    """

    def __init__(
        self, host: str, port: int, graph: str = GRAPH_NAME, password: str | None = None
    ) -> None:
        self.url = f"falkordb://{host}:{port}"
        try:
            self._db = FalkorDB(
                host=host,
                port=port,
                password=password,
                socket_timeout=300,
                socket_connect_timeout=5,
            )
            modules = self._db.connection.execute_command("MODULE", "LIST")
        except redis.exceptions.RedisError as exc:
            raise BackendUnavailable(f"FalkorDB at {self.url} is not reachable: {exc}") from None
        version = ""
        for module in modules:
            fields = dict(zip(module[::2], module[1::2], strict=False))
            name = fields.get("name", fields.get(b"name"))
            if name in ("graph", b"graph"):
                raw = int(fields["ver"] if "ver" in fields else fields.get(b"ver", 0))
                version = f"{raw // 10000}.{raw // 100 % 100}.{raw % 100}"
        if not version:
            raise BackendUnavailable(f"{self.url} answers but has no FalkorDB module loaded")
        self._graph = self._db.select_graph(graph)
        self.capabilities = Capabilities(
            engine="falkordb",
            vector_score="distance",
            version=version,
        )

    def _execute(self, name: str, text: str, params: dict[str, Any]) -> Rows:
        try:
            result = self._graph.query(text, params or None)
        except redis.exceptions.ConnectionError as exc:
            raise BackendUnavailable(f"lost FalkorDB at {self.url}: {exc}") from None
        except redis.exceptions.RedisError as exc:
            raise QueryError(name, str(exc).splitlines()[0]) from None
        if not result.header:
            return []
        columns = [column[1] for column in result.header]
        return [dict(zip(columns, row, strict=True)) for row in result.result_set]

    @contextmanager
    def _transaction(self) -> Iterator[Transaction]:
        yield _StatementTransaction(self)

    def _execute_schema(self, name: str, statement: str) -> None:
        try:
            self._graph.query(statement)
        except redis.exceptions.ResponseError as exc:
            # FalkorDB has no IF NOT EXISTS; an existing index is the goal state.
            if "already indexed" not in str(exc):
                raise QueryError(name, str(exc).splitlines()[0]) from None

    def close(self) -> None:
        self._db.connection.close()
