"""The engine registry: every graph database mragent runs on, declared once.

An engine is two things: a module in this package that defines ``ENGINE`` (an
:class:`Engine`, listed in :data:`REGISTRY`), and its folder of Cypher
overrides, ``cypher/engines/<name>/`` (``cypher/README.md`` says how an engine
overrides a query or a fragment). Nothing else in mragent names an engine: the
query registry loads one dialect per entry here, the database URL is parsed
against the schemes declared here, and the stores take their capabilities from
here. ``tests/test_engines.py`` lists what an engine must provide and checks
that every registered engine provides it.

A store class speaks a *wire* protocol, not an engine: FalkorDB's RESP, or Bolt
(Neo4j and Memgraph, told apart by what the server says it is). An engine on an
existing wire is data only; a new wire also needs a store class and its entry in
:mod:`mragent.core.store.connect`.

Part of the core layer; imports nothing but the standard library and
:mod:`mragent.core.errors`, so the query registry can read it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from mragent.core.errors import ConfigError

Wire = Literal["resp", "bolt"]
WIRES: tuple[Wire, ...] = ("resp", "bolt")

# How a native vector index reports closeness, and the cosine similarity in [-1, 1]
# each kind stands for. An engine names one of these kinds.
VECTOR_SCORES: Mapping[str, Callable[[float], float]] = {
    "cosine": lambda raw: raw,  # the similarity itself
    "cosine01": lambda raw: 2.0 * raw - 1.0,  # (1 + cos) / 2
    "distance": lambda raw: 1.0 - raw,  # 1 - cos
}


@dataclass(frozen=True)
class Engine:
    """What mragent must know about one graph database.

    Attributes:
        name: The engine's name: ``Capabilities.engine``, the folder
            ``cypher/engines/<name>/`` and the name of its module here.
        wire: The protocol its store speaks (``resp`` or ``bolt``).
        schemes: Database URL schemes that name this engine, each mapped to the
            scheme its driver is given (``memgraph://`` is dialled as ``bolt://``).
        default_port: The port a URL without one reaches.
        vector_score: A key of :data:`VECTOR_SCORES`: how its vector index scores.
        transactions: Whether a transaction can hold several statements.
        agent: A word in the server's Bolt agent string that marks this engine
            behind a ``bolt://`` URL; None for the wire's fallback engine (the one
            assumed when no other engine's word appears).
        databases: Whether the URL's path names a database on the server.
        version_query: A statement whose first row's ``v`` is the version as the
            database reports it; None (or a failing statement): the version the
            store reads from the connection (a Bolt agent string, FalkorDB's
            module list).
    """

    name: str
    wire: Wire
    schemes: Mapping[str, str]
    default_port: int
    vector_score: str
    transactions: bool
    agent: str | None = None
    databases: bool = False
    version_query: str | None = None

    def __post_init__(self) -> None:
        if self.vector_score not in VECTOR_SCORES:
            raise ConfigError(
                f"engine {self.name!r}: vector_score {self.vector_score!r} is not one of "
                f"{sorted(VECTOR_SCORES)}"
            )


def _registry() -> tuple[Engine, ...]:
    # Imported here, not at the top: each engine module imports Engine from this one.
    from mragent.core.engines import falkordb, memgraph, neo4j

    # The order is the order engines are listed in (help text, errors, loading):
    # the embedded default first.
    return (falkordb.ENGINE, neo4j.ENGINE, memgraph.ENGINE)


REGISTRY: tuple[Engine, ...] = _registry()
ENGINES: tuple[str, ...] = tuple(e.name for e in REGISTRY)
_BY_SCHEME = {scheme: e for e in REGISTRY for scheme in e.schemes}
# URL schemes that name a wire but no engine: the server says which engine it is.
DETECTING_SCHEMES: Mapping[str, Wire] = {"bolt": "bolt", "bolt+s": "bolt"}


def engine_for_scheme(scheme: str) -> Engine | None:
    """The engine a database URL scheme names; None for a scheme that names none."""
    return _BY_SCHEME.get(scheme)


def url_schemes() -> tuple[str, ...]:
    """Every database URL scheme mragent opens, for help text and errors."""
    named = [scheme for e in REGISTRY for scheme in e.schemes]
    return (*named, *DETECTING_SCHEMES)


def detect(wire: Wire, agent: str) -> Engine:
    """The engine behind a server on ``wire`` whose agent string is ``agent``.

    The first engine of the wire whose :attr:`Engine.agent` word appears in the
    agent string (case-insensitive); else the wire's fallback engine.
    """
    on_wire = [e for e in REGISTRY if e.wire == wire]
    lowered = agent.lower()
    for candidate in on_wire:
        if candidate.agent is not None and candidate.agent in lowered:
            return candidate
    return next(e for e in on_wire if e.agent is None)


__all__ = [
    "DETECTING_SCHEMES",
    "ENGINES",
    "REGISTRY",
    "VECTOR_SCORES",
    "WIRES",
    "Engine",
    "Wire",
    "detect",
    "engine_for_scheme",
    "url_schemes",
]
