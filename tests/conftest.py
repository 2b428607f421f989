"""Shared fixtures: real graph database engines, one namespace per test.

Engines:
* ``falkordb``: the embedded server, started in a temporary MRAGENT_HOME (always).
* ``neo4j``: ``MRAGENT_TEST_NEO4J_URL`` (default ``bolt://127.0.0.1:7687``, auth from
  ``MRAGENT_DB_USER``/``MRAGENT_DB_PASSWORD``, default neo4j/mragent-dev), or a
  testcontainers Neo4j where a Docker engine answers.
* ``memgraph``: ``MRAGENT_TEST_MEMGRAPH_URL`` (default ``memgraph://127.0.0.1:7688``),
  or a testcontainers Memgraph where a Docker engine answers.

An unreachable engine skips its tests with the reason, unless it is named in
``MRAGENT_REQUIRE_BACKENDS`` (comma-separated), which turns the skip into a failure.
The same names cover the optional frameworks the integrations need
(:func:`optional_package`: ``langgraph``, ``langchain``).
"""

from __future__ import annotations

import importlib
import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest

from mragent.core.errors import BackendUnavailable
from mragent.core.store import embedded, open_store
from mragent.core.store.base import GraphStore
from mragent.memory.credentials import editing, os_user
from mragent.memory.principal import Principal
from tests.fixtures import CHAIN

ENGINES = ("falkordb", "neo4j", "memgraph")
REPO = Path(__file__).resolve().parent.parent


def required_backends() -> set[str]:
    return {
        e.strip() for e in os.environ.get("MRAGENT_REQUIRE_BACKENDS", "").split(",") if e.strip()
    }


def unavailable(engine: str, reason: str) -> NoReturn:
    """Skip, or fail when the engine is required."""
    if engine in required_backends():
        pytest.fail(f"{engine} is required (MRAGENT_REQUIRE_BACKENDS) but {reason}")
    pytest.skip(f"{engine} not reachable: {reason}")


def optional_package(module: str, name: str) -> Any:
    """Import an optional framework, or skip (fail when ``name`` is required)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if name in required_backends():
            pytest.fail(f"{name} is required (MRAGENT_REQUIRE_BACKENDS) but {exc}")
        pytest.skip(f"{name} not installed (pip install 'mragent[{name}]'): {exc}")


def _docker_container(engine: str) -> tuple[object, str] | None:
    """Start an engine with testcontainers when a Docker engine answers."""
    try:
        import docker
        from testcontainers.core.container import DockerContainer
        from testcontainers.core.waiting_utils import wait_for_logs

        docker.from_env().ping()
    except Exception:  # no package, no daemon: Docker is simply not an option here
        return None
    if engine == "neo4j":
        box = (
            DockerContainer("neo4j:5.26-community")
            .with_env("NEO4J_AUTH", "neo4j/mragent-dev")
            .with_exposed_ports(7687)
        )
        box.start()
        wait_for_logs(box, "Started.", timeout=120)
        return (
            box,
            f"bolt://neo4j:mragent-dev@{box.get_container_host_ip()}:{box.get_exposed_port(7687)}",
        )
    # Text search is not experimental since Memgraph 3.6, which refuses to start with
    # the old --experimental-enabled=text-search flag.
    box = DockerContainer("memgraph/memgraph:latest").with_exposed_ports(7687)
    box.start()
    wait_for_logs(box, "You are running Memgraph", timeout=120)
    return box, f"memgraph://{box.get_container_host_ip()}:{box.get_exposed_port(7687)}"


@pytest.fixture(scope="session", autouse=True)
def session_audit_log(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Writes made by module- and session-scoped fixtures go to a log of the test
    session's own (each test then gets its own, below), never to a working tree's."""
    path = tmp_path_factory.mktemp("audit") / "audit.jsonl"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MRAGENT_AUDIT_LOG", str(path))
        yield path


@pytest.fixture(autouse=True)
def audit_log_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's writes go to its own audit log, never to a working tree's."""
    path = tmp_path / "audit.jsonl"
    monkeypatch.setenv("MRAGENT_AUDIT_LOG", str(path))
    return path


@pytest.fixture(autouse=True)
def credentials_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test starts in the single-user default: its own credentials file, absent
    until a test writes it, and no token in the environment."""
    path = tmp_path / "credentials.json"
    monkeypatch.setenv("MRAGENT_CREDENTIALS", str(path))
    for name in ("MRAGENT_TOKEN", "MRAGENT_TOKEN_FILE"):
        monkeypatch.delenv(name, raising=False)
    return path


@pytest.fixture
def agent_token(credentials_path: Path) -> str:
    """Credentials configured: the OS user is human:ana, agent:scout holds the returned
    token; both read and write the shared scope only."""
    with editing(credentials_path) as creds:
        creds.add(Principal("human", "ana"), read=["shared"], write=["shared"], user=os_user())
        token = creds.add(Principal("agent", "scout"), read=["shared"], write=["shared"])
    assert token is not None
    return token


@pytest.fixture(autouse=True)
def index_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's readers persist their index copies in its own directory."""
    path = tmp_path / "index"
    monkeypatch.setenv("MRAGENT_INDEX_DIR", str(path))
    return path


@pytest.fixture(scope="session")
def falkordb_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("mragent-home")
    try:
        server = embedded.ensure_running(home)
    except BackendUnavailable as exc:
        unavailable("falkordb", str(exc))
    yield server.secret_url
    embedded.stop(home)


_containers: list[object] = []


def _bolt_url(engine: str) -> str:
    if engine == "neo4j":
        url = os.environ.get("MRAGENT_TEST_NEO4J_URL", "bolt://127.0.0.1:7687")
        os.environ.setdefault("MRAGENT_DB_PASSWORD", "mragent-dev")
    else:
        url = os.environ.get("MRAGENT_TEST_MEMGRAPH_URL", "memgraph://127.0.0.1:7688")
    return url


@pytest.fixture(scope="session")
def engine_urls(falkordb_url: str) -> dict[str, str | None]:
    """URL per engine, or None when it cannot be reached."""
    urls: dict[str, str | None] = {"falkordb": falkordb_url}
    for engine in ("neo4j", "memgraph"):
        url = _bolt_url(engine)
        try:
            open_store(url).close()
            urls[engine] = url
        except BackendUnavailable:
            started = _docker_container(engine)
            if started:
                _containers.append(started[0])
                urls[engine] = started[1]
            else:
                urls[engine] = None
    return urls


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    for box in _containers:
        box.stop()  # type: ignore[attr-defined]


@pytest.fixture(params=ENGINES)
def store(
    request: pytest.FixtureRequest, engine_urls: dict[str, str | None]
) -> Iterator[GraphStore]:
    """An open store on each engine in turn (the backend contract fixture)."""
    engine = request.param
    url = engine_urls[engine]
    if url is None:
        unavailable(engine, f"nothing answers at {_bolt_url(engine)} and no Docker engine")
    with open_store(url) as opened:
        assert opened.capabilities.engine == engine
        yield opened


@pytest.fixture
def ns(store: GraphStore) -> Iterator[str]:
    """A fresh namespace, deleted afterwards."""
    name = f"t-{uuid.uuid4().hex[:12]}"
    yield name
    store.run("delete_namespace", {"ns": name})


@pytest.fixture(scope="session")
def falkor_store(falkordb_url: str) -> Iterator[GraphStore]:
    """A store on the embedded FalkorDB only (pipeline tests that need one engine)."""
    with open_store(falkordb_url) as opened:
        yield opened


@pytest.fixture
def corpus_file(tmp_path: Path) -> Path:
    """The CHAIN fixture corpus written to a file, for CLI tests."""
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(CHAIN))
    return path
