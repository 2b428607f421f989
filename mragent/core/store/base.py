"""The store interface every engine implements.

A store runs *named* queries from the registry with ``$parameters``; it never
accepts raw Cypher from callers. Engine differences are carried as data: a
:class:`Capabilities` object and per-engine query files.
"""

from __future__ import annotations

import abc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from mragent.core.engines import VECTOR_SCORES, Engine
from mragent.core.queries import QueryTemplate, get_query

Rows = list[dict[str, Any]]
# Rows per transaction of a namespace-wide write an engine's query file chunks
# (``render: chunk``): small enough for Neo4j's default transaction memory limit at a
# hub tag's thousands of edges, large enough that commits are not the cost.
CHUNK_ROWS = 2000
# FalkorDB replies carry a double as text to 15 significant digits (``%.15g``); Bolt
# engines send all 17. A value the database computed is read at the shorter precision
# on every engine (:func:`engine_float`), so no result depends on the engine's reply format.
REPLY_DIGITS = 15


def engine_float(value: Any) -> float:
    """A float the database computed, at the precision every engine replies with.

    Idempotent: a 15-digit decimal survives the round trip through a double, so a
    FalkorDB reply is returned unchanged and a Bolt reply is cut to the same value.
    """
    return float(f"{float(value):.{REPLY_DIGITS}g}")


@dataclass(frozen=True)
class Capabilities:
    """What an engine can do, and how its answers must be read.

    Attributes:
        engine: a registered engine's name (:mod:`mragent.core.engines`); picks
            the query overrides.
        vector_score: how the native vector index reports closeness, a key of
            :data:`~mragent.core.engines.VECTOR_SCORES`: ``cosine`` (the
            similarity itself), ``cosine01`` (``(1 + cos) / 2``) or ``distance``
            (``1 - cos``).
        version: the server's reported version string.
        transactions: whether :meth:`GraphStore.transaction` can hold several
            statements (Bolt engines); FalkorDB commits each statement alone,
            so its transaction holds one and refuses a second.
    """

    engine: str
    vector_score: str
    version: str = ""
    transactions: bool = True

    @classmethod
    def of(cls, engine: Engine, version: str) -> Capabilities:
        """The capabilities of a server of ``engine`` reporting ``version``."""
        return cls(engine.name, engine.vector_score, version, engine.transactions)

    def similarity(self, raw: float) -> float:
        """Turn a native vector score into a cosine similarity in [-1, 1]."""
        return VECTOR_SCORES[self.vector_score](float(raw))


@dataclass(frozen=True)
class Statement:
    """A named query rendered, checked and encoded for one store, ready to run.

    Made by :meth:`GraphStore.statement`, run by :meth:`GraphStore.execute`: encoding
    a large write (an ingest batch) can then happen in another thread while the
    database is busy with the statement before it.
    """

    name: str
    text: str
    params: dict[str, Any]


class Transaction(abc.ABC):
    """A unit of work: named queries run inside it commit or roll back together.

    On an engine without multi-statement transactions (``capabilities.transactions``
    false) it holds exactly one statement and a second one raises
    :class:`~mragent.core.errors.QueryError` before it runs; callers that need
    several statements to be whole write them elsewhere first and publish them
    with one statement (see ``mragent.apps.transfer.importer``).
    """

    @abc.abstractmethod
    def run(self, name: str, params: dict[str, Any] | None = None, **render: int | str) -> Rows:
        """Run a named query inside this transaction."""


class GraphStore(abc.ABC):
    """A connection to one graph database holding mragent memories.

    Attributes:
        chunk_rows: Rows per transaction for the namespace-wide writes an engine runs
            in chunks (the queries declaring ``render: chunk``); other engines run
            them as one statement.
    """

    capabilities: Capabilities
    url: str
    chunk_rows: int = CHUNK_ROWS

    @property
    def secret_url(self) -> str:
        """The URL another process opens to reach this store, with the credentials it
        carries (the embedded FalkorDB's password); for worker processes, never to
        print. Bolt stores take theirs from the environment, so it is :attr:`url`."""
        return self.url

    def template(self, name: str) -> QueryTemplate:
        """The query template for ``name`` in this store's dialect."""
        return get_query(name, self.capabilities.engine)

    def prepare(
        self, name: str, params: dict[str, Any] | None, render: dict[str, int | str]
    ) -> tuple[str, dict[str, Any]]:
        """Render and check a named query; the single path to query text.

        A query that declares the ``chunk`` placeholder (an engine's chunked form of a
        namespace-wide write) gets :attr:`chunk_rows` unless the caller names one.
        """
        template = self.template(name)
        if "chunk" in template.render_specs and "chunk" not in render:
            render = {**render, "chunk": self.chunk_rows}
        params = params or {}
        template.check_params(params)
        return template.render(**render), params

    def run(self, name: str, params: dict[str, Any] | None = None, **render: int | str) -> Rows:
        """Run a named query and return its rows as dicts.

        Args:
            name: A query name from the registry (``cypher/<name>.cypher``).
            params: Values for the query's declared ``$parameters``.
            **render: Range-checked integers and closed-set identifiers for the
                query's placeholders.

        Raises:
            QueryError: on a database error, naming the query.
            BackendUnavailable: when the connection is lost.
        """
        return self.execute(self.statement(name, params, **render))

    def statement(
        self, name: str, params: dict[str, Any] | None = None, **render: int | str
    ) -> Statement:
        """The named query rendered and checked (as :meth:`run` does), its parameters
        in the form this engine sends them; run it with :meth:`execute`."""
        text, params = self.prepare(name, params, render)
        return self._encode(Statement(name, text, params))

    def execute(self, statement: Statement) -> Rows:
        """Run a statement made by :meth:`statement` of this store."""
        return self._execute(statement.name, statement.text, statement.params)

    def _encode(self, statement: Statement) -> Statement:
        """The statement in the form the engine's wire takes (Bolt drivers encode
        the parameters themselves)."""
        return statement

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """Open a transaction; committed on normal exit, rolled back on error.

        Where ``capabilities.transactions`` is false the transaction takes one
        statement only (which is atomic on its own) and refuses a second.
        """
        with self._transaction() as tx:
            yield tx

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """A window for loading a new namespace in many large writes.

        An engine may relax, for the window only, the server's housekeeping that
        copies the whole database (FalkorDB: AOF rewrites and snapshots), never the
        durability of a write: each write is still on disk when it is acknowledged,
        this one's and every other client's. Restored on exit, also on error. The
        default does nothing (Bolt engines have no such housekeeping to pause).
        """
        yield

    @abc.abstractmethod
    def erase_residue(self) -> None:
        """Make the engine drop copies of erased data it keeps besides the graph.

        Called after ``purge``: query logs the engine keeps, and files that still
        hold the erased values until they are rewritten.
        """

    @abc.abstractmethod
    def _execute(self, name: str, text: str, params: dict[str, Any]) -> Rows: ...

    @abc.abstractmethod
    def _transaction(self) -> Any: ...

    def ensure_schema(self, dimension: int) -> None:
        """Create indexes (ids and keys, vector on ``Cue.embedding``).

        Idempotent: safe to call on every connection; a connection runs the
        statements once per dimension (each write path calls this first).
        """
        if dimension in self._schema_done:
            return
        self._run_schema("schema_ids", {})
        self._run_schema("schema_vector", {}, dimension=dimension)
        self._schema_done.add(dimension)

    @property
    def _schema_done(self) -> set[int]:
        # Per connection; created lazily so engine constructors need not know of it.
        return self.__dict__.setdefault("_schema_dimensions", set())

    def forget_schema(self) -> None:
        """Make the next :meth:`ensure_schema` run its statements again."""
        self._schema_done.clear()

    def drop_vector_index(self) -> None:
        """Drop the native vector index on ``Cue.embedding`` (``reembed`` rebuilds it
        for a new dimension); the next :meth:`ensure_schema` recreates it."""
        self._run_schema("schema_vector_drop", {})
        self.forget_schema()

    def _run_schema(self, name: str, params: dict[str, Any], **render: int | str) -> None:
        template = self.template(name)
        text = template.render(**render) if render else template.text
        for statement in _split_statements(text):
            self._execute_schema(name, statement)

    @abc.abstractmethod
    def _execute_schema(self, name: str, statement: str) -> None: ...

    @abc.abstractmethod
    def close(self) -> None:
        """Release the connection."""

    def __enter__(self) -> GraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _split_statements(text: str) -> list[str]:
    """Split a schema file into statements (``;``-terminated, comments removed)."""
    body = "\n".join(line for line in text.splitlines() if not line.strip().startswith("//"))
    return [part.strip() for part in body.split(";") if part.strip()]
