"""The engine registry: what an engine must provide, checked for every registered one.

An engine is a module in ``mragent/core/engines/`` defining ``ENGINE`` and listed
in ``REGISTRY``, plus its Cypher overrides in ``cypher/engines/<name>/``. It must
provide:

1. a module of its own name, registered (no module left out of the table);
2. a wire protocol a store opens, and on that wire either a word that marks it
   in the server's agent string or the place of the wire's one fallback engine;
3. at least one database URL scheme of its own, dialled as a scheme its driver
   takes, and a default port: the URL reaches its store, naming the engine;
4. a known vector-score kind (how its vector index reports closeness);
5. every query in its dialect: each override in its folder replaces a common
   query or fragment and declares what that one declares;
6. a place in the backend contract suite (``tests/conftest.py``'s ``ENGINES``).
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import Any

import pytest

from mragent.core import engines, queries
from mragent.core.engines import (
    DETECTING_SCHEMES,
    ENGINES,
    REGISTRY,
    VECTOR_SCORES,
    WIRES,
    Engine,
    detect,
    engine_for_scheme,
    url_schemes,
)
from mragent.core.errors import BackendUnavailable, ConfigError
from mragent.core.queries import ENGINE_DIRS, FRAGMENTS, engine_dir, get_query, query_names
from mragent.core.store import connect
from mragent.core.store.base import Capabilities
from tests import conftest


def test_every_engine_module_is_registered_under_its_own_name() -> None:
    modules = {m.name for m in pkgutil.iter_modules(engines.__path__)}
    assert modules == set(ENGINES)
    assert len(set(ENGINES)) == len(REGISTRY)
    for registered in REGISTRY:
        module = importlib.import_module(f"mragent.core.engines.{registered.name}")
        assert module.ENGINE is registered


@pytest.mark.parametrize("wire", WIRES)
def test_each_wire_has_an_opener_and_one_fallback_engine(wire: str) -> None:
    assert wire in connect._OPENERS
    on_wire = [e for e in REGISTRY if e.wire == wire]
    assert on_wire, f"no engine speaks {wire}"
    assert [e.agent for e in on_wire].count(None) == 1
    assert detect(wire, "SomeServer/1.0").agent is None  # type: ignore[arg-type]


_MARKED = [e for e in REGISTRY if e.agent is not None]


@pytest.mark.parametrize("chosen", _MARKED, ids=[e.name for e in _MARKED])
def test_the_engine_is_told_by_its_agent_string(chosen: Engine) -> None:
    assert chosen.agent is not None
    assert detect(chosen.wire, f"{chosen.agent.title()}/3.1.0") is chosen
    assert detect(chosen.wire, f"Neo4j/v5 compatible server - {chosen.agent.upper()}") is chosen


def test_schemes_are_each_engines_own() -> None:
    named = [scheme for e in REGISTRY for scheme in e.schemes]
    assert len(named) == len(set(named)), "two engines claim one URL scheme"
    assert not set(named) & set(DETECTING_SCHEMES)
    assert set(url_schemes()) == set(named) | set(DETECTING_SCHEMES)
    assert set(DETECTING_SCHEMES.values()) <= set(WIRES)


class _Opened:
    """Stands in for a store class: records how it was opened."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args, self.kwargs = args, kwargs


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> None:
    from mragent.core.store import bolt, falkordb

    monkeypatch.setattr(bolt, "BoltStore", _Opened)
    monkeypatch.setattr(falkordb, "FalkorStore", _Opened)
    monkeypatch.setenv("MRAGENT_DB_PASSWORD", "pw")
    monkeypatch.delenv("MRAGENT_DB_USER", raising=False)


@pytest.mark.parametrize("chosen", REGISTRY, ids=ENGINES)
def test_each_scheme_opens_its_engine_store(chosen: Engine, opened: None) -> None:
    assert chosen.schemes and chosen.default_port > 0
    for scheme, dialled in chosen.schemes.items():
        assert engine_for_scheme(scheme) is chosen
        with_port = connect.open_store(f"{scheme}://db.example:4321")
        without = connect.open_store(f"{scheme}://db.example")
        assert isinstance(with_port, _Opened) and isinstance(without, _Opened)
        if chosen.wire == "bolt":
            assert with_port.args[0] == f"{dialled}://db.example:4321"
            assert without.args[0] == f"{dialled}://db.example:{chosen.default_port}"
            assert with_port.kwargs["engine"] is chosen
        else:
            assert with_port.args[:2] == ("db.example", 4321)
            assert without.args[:2] == ("db.example", chosen.default_port)


def test_a_detecting_scheme_leaves_the_engine_to_the_server(opened: None) -> None:
    store = connect.open_store("bolt+s://db.example/graphs")
    assert isinstance(store, _Opened)
    fallback = detect("bolt", "")
    assert store.args[0] == f"bolt+s://db.example:{fallback.default_port}"
    assert store.kwargs == {"engine": None, "database": "graphs"}
    with pytest.raises(ConfigError, match="scheme must be one of"):
        connect.open_store("sqlite://db.example")


# A raw score the index gives an identical vector, and an orthogonal one, by kind.
_IDENTICAL = {"cosine": 1.0, "cosine01": 1.0, "distance": 0.0}
_ORTHOGONAL = {"cosine": 0.0, "cosine01": 0.5, "distance": 1.0}


@pytest.mark.parametrize("chosen", REGISTRY, ids=ENGINES)
def test_the_vector_score_kind_is_known_and_read_as_a_cosine(chosen: Engine) -> None:
    assert set(_IDENTICAL) == set(VECTOR_SCORES)
    caps = Capabilities.of(chosen, "1.2.3")
    assert (caps.engine, caps.version, caps.transactions) == (
        chosen.name,
        "1.2.3",
        chosen.transactions,
    )
    assert caps.similarity(_IDENTICAL[chosen.vector_score]) == 1.0
    assert caps.similarity(_ORTHOGONAL[chosen.vector_score]) == 0.0
    with pytest.raises(ConfigError, match="vector_score"):
        Engine("x", chosen.wire, {"x": "x"}, 1, "euclid", True)


@pytest.mark.parametrize("chosen", REGISTRY, ids=ENGINES)
def test_every_query_exists_in_the_engines_dialect(chosen: Engine) -> None:
    overrides = {p.stem for p in engine_dir(chosen.name).glob("*.cypher")}
    for name in query_names():
        template = get_query(name, chosen.name)
        assert template.engine == (chosen.name if name in overrides else None), name
    assert overrides <= set(query_names())


def test_every_engine_folder_belongs_to_a_registered_engine() -> None:
    folders = {p.name for p in (queries.query_dir() / ENGINE_DIRS).iterdir() if p.is_dir()}
    assert folders <= set(ENGINES)
    for name in folders:
        for path in engine_dir(name).rglob("*"):
            assert path.is_dir() or path.suffix == ".cypher", path
            assert path.parent.name in (name, FRAGMENTS), path


def test_the_contract_suite_runs_every_engine() -> None:
    assert set(conftest.ENGINES) == set(ENGINES)


# -- the loader refuses an override that is not one --------------------------------------

_PICK = "// fragment: pick(m)\n// params:\nm.x\n"
_PICK_Y = "// fragment: pick(m)\n// params: y\nm.x = $y\n"
_COMMON = "// q\n// params: ns\n// returns: id\nMATCH (n {ns: $ns}) RETURN n.id AS id\n"


def _load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> None:
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    monkeypatch.setattr(queries, "query_dir", lambda: tmp_path)
    queries.clear_caches()
    try:
        get_query("q", "neo4j")
    finally:
        monkeypatch.undo()
        queries.clear_caches()


def test_an_override_that_adds_only_a_chunk_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chunked = _COMMON.replace("// returns: id\n", "// returns: id\n// render: chunk 1..9\n")
    chunked = chunked.replace("RETURN", "WITH n LIMIT {{chunk}} RETURN")
    _load(tmp_path, monkeypatch, {"q.cypher": _COMMON, "engines/neo4j/q.cypher": chunked})


@pytest.mark.parametrize(
    ("files", "error"),
    [
        ({"engines/neo4j/other.cypher": _COMMON}, "overrides no query"),
        ({"engines/neo4j/q.cypher": _COMMON.replace("returns: id", "returns: id, x")}, "returns"),
        (
            {
                "engines/neo4j/q.cypher": _COMMON.replace("ns: $ns", "ns: $ns, a: $a").replace(
                    "params: ns", "params: ns, a"
                )
            },
            "params",
        ),
        (
            {
                "engines/neo4j/q.cypher": _COMMON.replace(
                    "// returns: id\n", "// returns: id\n// render: depth 1..3\n"
                ).replace("RETURN", "WITH n LIMIT {{depth}} RETURN")
            },
            "may add only",
        ),
        (
            {
                "fragments/pick.cypher": _PICK,
                "engines/neo4j/fragments/pick.cypher": _PICK_Y,
            },
            "the common fragment",
        ),
        (
            {"engines/neo4j/fragments/pick.cypher": _PICK},
            "overrides no fragment",
        ),
    ],
)
def test_an_override_must_replace_a_common_file_and_declare_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], error: str
) -> None:
    with pytest.raises(ConfigError, match=error):
        _load(tmp_path, monkeypatch, {"q.cypher": _COMMON, **files})


def test_a_url_naming_another_engine_than_the_servers_is_refused(
    engine_urls: dict[str, str | None],
) -> None:
    """A ``memgraph://`` URL that reaches a Neo4j would otherwise fail at its first
    statement, as a syntax error in the other dialect."""
    url = engine_urls["neo4j"]
    if url is None:
        conftest.unavailable("neo4j", "no Neo4j server to dial as another engine")
    address = url.split("://", 1)[1]
    with pytest.raises(BackendUnavailable, match=r"is neo4j .* not the memgraph .* use neo4j://"):
        connect.open_store(f"memgraph://{address}")
