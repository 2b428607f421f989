"""Embedding provenance and ``reembed``: a namespace moves to another embedder whole.

Every engine runs the migrations that keep the dimension (the database's vector
index, shared by every namespace, is untouched). A dimension change rebuilds
that index, so it runs on a database of its own: a private FalkorDB graph, or a
Bolt database that holds no other namespace.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pytest
import typer
from falkordb import FalkorDB
from typer.testing import CliRunner

from mragent import open_memory
from mragent.apps.reembed.rewrite import (
    ReembedState,
    reembed,
    reembed_state,
)
from mragent.cli.reembed import reembed_command
from mragent.core.corpus import parse_corpus
from mragent.core.embedding import (
    Embedder,
    EmbedderIdentity,
    HashingEmbedder,
    default_embedder,
    embedder_from_spec,
    passage_text,
)
from mragent.core.errors import ConfigError, EmbeddingMismatch, MragentError, ReembedInProgress
from mragent.core.retrieval.cue_search import CueIndex
from mragent.core.store import open_store
from mragent.core.store.base import GraphStore
from mragent.core.store.falkordb import FalkorStore
from mragent.memory import space
from mragent.memory.audit import AuditLog
from mragent.memory.principal import Principal
from mragent.memory.reader import MemoryReader
from mragent.memory.space import check_space
from tests.conftest import ENGINES, unavailable
from tests.fixtures import CHAIN, feed_page, ingest

ADMIN = "human:tester"


def as_admin() -> dict[str, object]:
    """Principal and audit log of a test's re-embedding (the log is the test's own)."""
    return {"principal": Principal("human", "tester"), "audit": AuditLog()}


SCOPES = ("shared", "team-b")
DEFAULT_TEXT = "hashing:word+char3-blake2:256:norm"
# A second corpus for the second scope: re-embedding is namespace-wide.
TEAM_B = {
    "format": "mragent-corpus/1",
    "contents": [
        {
            "id": "orbit",
            "title": "Orbit",
            "tags": ["Orbit", "Vega"],
            "cues": [],
            "text": "Orbit was built near Vega.",
        },
        {"id": "vega", "title": "Vega", "tags": ["Vega"], "cues": [], "text": "Vega is a star."},
    ],
}


class ReversedEmbedder(HashingEmbedder):
    """Another identity with the default dimension: new vectors, the same index size."""

    def __init__(self) -> None:
        super().__init__(256)
        self.identity = EmbedderIdentity("test", "reversed-hashing", 256, True)
        self.spec = "test:reversed"  # not a spec mragent can build: tests pass it in

    def _embed(self, texts: list[str]) -> np.ndarray:
        return np.ascontiguousarray(super()._embed(texts)[:, ::-1])


class Stop(Exception):
    """Raised from a progress callback: a crash after a committed batch."""


def stop_after_first_batch(done: int, total: int) -> None:
    raise Stop(f"{done}/{total}")


def fill(store: GraphStore, ns: str) -> int:
    """Ingest a corpus into each of two scopes; return the namespace's cue count."""
    ingest(store, parse_corpus(CHAIN), ns, scope=SCOPES[0])
    ingest(store, parse_corpus(TEAM_B), ns, scope=SCOPES[1])
    return sum(len(cues(store, ns, scope)) for scope in SCOPES)


def fence(store: GraphStore, ns: str, embedder: Embedder) -> None:
    """The check every reader and writer runs on opening a namespace."""
    rows = store.run("get_space", {"ns": ns})
    check_space(ns, rows[0] if rows else None, embedder.identity)


def cues(store: GraphStore, ns: str, scope: str) -> list[dict]:
    return feed_page(store, "index_cues", ns, scope)


CONTENT_VECTORS = (
    "MATCH (m:Content) WHERE m.ns = $ns AND m.forgotten_at IS NULL "
    "RETURN m.title AS title, m.text AS text, m.embedding AS embedding ORDER BY m.key"
)


def assert_space(store: GraphStore, ns: str, embedder: Embedder) -> None:
    """Every cue of every scope, and every live content, holds exactly the vector
    ``embedder`` gives its text (a content's: its passage text)."""
    dim = embedder.identity.dimension
    for scope in SCOPES:
        rows = cues(store, ns, scope)
        assert rows, scope
        assert {len(row["embedding"]) for row in rows} == {dim}, scope
        stored = np.array([row["embedding"] for row in rows], dtype=np.float32)
        expected = embedder.embed_passages([row["text"] for row in rows])
        np.testing.assert_allclose(stored, expected, atol=1e-6)
    contents = store._execute("content_vectors", CONTENT_VECTORS, {"ns": ns})
    assert contents
    stored = np.array([row["embedding"] for row in contents], dtype=np.float32)
    texts = [passage_text(row["title"], row["text"]) for row in contents]
    np.testing.assert_allclose(stored, embedder.embed_passages(texts), atol=1e-6)


def assert_native_search(store: GraphStore, ns: str, embedder: Embedder) -> None:
    """The database's own vector index finds each scope's cue by its exact vector."""
    for scope, text in zip(SCOPES, ("Jane Roe", "Vega"), strict=True):
        index = CueIndex(embedder.identity.dimension)
        index.add(
            {**row, "embedding": np.asarray(row["embedding"])} for row in cues(store, ns, scope)
        )
        vector = embedder.embed_queries([text])[0]
        mask = index.admitted((scope,))
        # Ask for every cue of the scope: the index is approximate and spans every
        # namespace the test database holds, so a top-3 fetch may pass the exact
        # vector by; a fetch that must reach all of the scope's cues cannot.
        hits = index.native_dense(store, ns, (scope,), vector, mask, k=int(mask.sum()))
        assert hits, f"no native hits in scope {scope}"
        top = max(hits, key=hits.__getitem__)
        assert index.texts[index.slot_of[top]] == text
        assert hits[top] == pytest.approx(1.0, abs=1e-3)


# ------------------------------------------------------------------ specs ---


@pytest.mark.parametrize(
    ("spec", "identity"),
    [
        ("hashing", DEFAULT_TEXT),
        (" hashing ", DEFAULT_TEXT),
        ("hashing:512", "hashing:word+char3-blake2:512:norm"),
        ("hashing:word+char3-blake2:128:norm", "hashing:word+char3-blake2:128:norm"),
    ],
)
def test_an_embedder_is_named_by_a_spec(spec: str, identity: str) -> None:
    assert embedder_from_spec(spec).identity.as_text() == identity


def test_the_default_spec_keeps_the_default_identity() -> None:
    # Namespaces stamped by the default embedder must stay writable.
    assert embedder_from_spec("hashing").identity == default_embedder().identity
    assert default_embedder().identity.as_text() == DEFAULT_TEXT


@pytest.mark.parametrize(
    "spec",
    ["", "bert", "hashing:", "hashing:0", "hashing:4097", "hashing:x", "hashing:-8", "hashing:²",
     "hashing:word+char3-blake2:128:raw", "hashing:other:128:norm", "hashing:128:1"],
)  # fmt: skip
def test_a_bad_spec_names_the_value_and_what_is_accepted(spec: str) -> None:
    with pytest.raises(ConfigError) as err:
        embedder_from_spec(spec, option="--embedder")
    message = str(err.value)
    assert f"--embedder {spec!r}" in message
    assert "'hashing'" in message and "hashing:DIM" in message


# ------------------------------------------------------- every engine ---


def test_reembed_moves_every_scope_and_restamps(
    store: GraphStore, ns: str, audit_log_path: Path
) -> None:
    total = fill(store, ns)
    new = ReversedEmbedder()
    seen: list[tuple[int, int]] = []
    report = reembed(
        store, ns, new, **as_admin(), progress=lambda d, t: seen.append((d, t)), batch_size=4
    )
    assert (report.namespace, report.principal) == (ns, ADMIN)
    assert audit_log_path.read_text().count('"action":"reembed"') == 1
    assert (report.before, report.after) == (DEFAULT_TEXT, new.identity.as_text())
    assert report.changed and not report.resumed and not report.index_rebuilt
    assert report.cues == report.total == total
    contents = len(CHAIN["contents"]) + len(TEAM_B["contents"])
    assert report.contents == report.content_total == contents
    assert report.batches == len(seen) == math.ceil(total / 4) + math.ceil(contents / 4)
    assert seen[-1] == (total + contents, total + contents)
    assert reembed_state(store, ns) == ReembedState(new.identity.as_text(), None, "")
    fence(store, ns, new)
    assert_space(store, ns, new)
    assert_native_search(store, ns, new)
    # The old embedder is now the stranger: writes and reads with it are refused.
    with pytest.raises(EmbeddingMismatch) as err:
        ingest(store, parse_corpus(CHAIN), ns, embedder=default_embedder())
    assert new.identity.as_text() in str(err.value) and DEFAULT_TEXT in str(err.value)
    with pytest.raises(EmbeddingMismatch, match="refusing a read"):
        MemoryReader(store, ns, embedder=default_embedder())
    MemoryReader(store, ns, embedder=new)  # the new one reads


def test_an_interrupted_migration_is_fenced_then_resumed(store: GraphStore, ns: str) -> None:
    total = fill(store, ns)
    new = ReversedEmbedder()
    with pytest.raises(Stop):
        reembed(store, ns, new, **as_admin(), progress=stop_after_first_batch, batch_size=3)
    state = reembed_state(store, ns)
    assert state is not None
    assert (state.embedder, state.migrating_to) == (DEFAULT_TEXT, new.identity.as_text())
    assert state.cursor  # the first batch committed with its cursor
    with pytest.raises(ReembedInProgress) as err:
        fence(store, ns, new)
    assert DEFAULT_TEXT in str(err.value) and new.identity.as_text() in str(err.value)
    assert isinstance(err.value, EmbeddingMismatch)  # refused wherever a mixed space is

    report = reembed(store, ns, new, **as_admin(), batch_size=3)
    assert report.resumed and report.restarted_from is None
    assert report.cues == total - 3 and report.total == total
    assert reembed_state(store, ns) == ReembedState(new.identity.as_text(), None, "")
    fence(store, ns, new)
    assert_space(store, ns, new)
    assert_native_search(store, ns, new)


def test_a_migration_interrupted_among_the_contents_resumes_there(
    store: GraphStore, ns: str
) -> None:
    total = fill(store, ns)
    contents = len(CHAIN["contents"]) + len(TEAM_B["contents"])
    new = ReversedEmbedder()

    def stop_in_the_contents(done: int, _: int) -> None:
        if done > total:  # every cue and a first page of contents committed
            raise Stop(str(done))

    with pytest.raises(Stop):
        reembed(store, ns, new, **as_admin(), progress=stop_in_the_contents, batch_size=3)
    state = reembed_state(store, ns)
    assert state is not None and state.cursor.startswith("content:")
    report = reembed(store, ns, new, **as_admin(), batch_size=3)
    assert report.resumed
    assert (report.cues, report.contents) == (0, contents - 3)
    assert report.content_total == contents
    assert_space(store, ns, new)


def test_reembed_to_the_stamped_embedder_embeds_contents_written_without_a_vector(
    store: GraphStore, ns: str
) -> None:
    fill(store, ns)
    drop = "MATCH (m:Content) WHERE m.ns = $ns AND m.key = 'acme' REMOVE m.embedding RETURN 1"
    store._execute("drop_vector", drop, {"ns": ns})  # as an older mragent wrote it
    report = reembed(store, ns, default_embedder(), **as_admin())
    assert report.changed and report.before == report.after == DEFAULT_TEXT
    assert_space(store, ns, default_embedder())
    again = reembed(store, ns, default_embedder(), **as_admin())
    assert not again.changed


def test_another_target_restarts_an_interrupted_migration(store: GraphStore, ns: str) -> None:
    total = fill(store, ns)
    new = ReversedEmbedder()
    with pytest.raises(Stop):
        reembed(store, ns, new, **as_admin(), progress=stop_after_first_batch, batch_size=3)
    # Going back to the stamped embedder is a migration too: every cue is rewritten.
    report = reembed(store, ns, default_embedder(), **as_admin(), batch_size=3)
    assert report.restarted_from == new.identity.as_text() and not report.resumed
    assert (report.before, report.after) == (DEFAULT_TEXT, DEFAULT_TEXT)
    assert report.cues == total
    assert reembed_state(store, ns) == ReembedState(DEFAULT_TEXT, None, "")
    assert_space(store, ns, default_embedder())


def test_writes_and_reads_are_refused_while_migrating(store: GraphStore, ns: str) -> None:
    fill(store, ns)
    new = ReversedEmbedder()
    with pytest.raises(Stop):
        reembed(store, ns, new, **as_admin(), progress=stop_after_first_batch, batch_size=3)
    late = {"format": "mragent-corpus/1", "contents": [
        {"id": "aaa", "title": "Aardvark", "tags": ["Aardvark"], "cues": [],
         "text": "Aardvark eats ants."}]}  # fmt: skip
    with pytest.raises(ReembedInProgress, match="being re-embedded"):
        ingest(store, parse_corpus(late), ns, scope=SCOPES[0])
    with pytest.raises(ReembedInProgress):
        MemoryReader(store, ns, embedder=new)
    report = reembed(store, ns, new, **as_admin(), batch_size=3)
    assert report.resumed
    assert_space(store, ns, new)


def test_a_dimension_change_is_refused_while_another_namespace_needs_the_old_index(
    store: GraphStore, ns: str
) -> None:
    fill(store, ns)
    other = f"t-{uuid.uuid4().hex[:12]}"
    try:
        ingest(store, parse_corpus(CHAIN), other)
        with pytest.raises(EmbeddingMismatch) as err:
            reembed(store, ns, embedder_from_spec("hashing:128"), **as_admin())
        assert repr(other) in str(err.value) and "hashing:word+char3-blake2:128" in str(err.value)
        # Refused before anything changed.
        assert reembed_state(store, ns) == ReembedState(DEFAULT_TEXT, None, "")
        assert_space(store, ns, default_embedder())
    finally:
        store.run("delete_namespace", {"ns": other})


def test_reembed_to_the_stamped_embedder_changes_nothing(store: GraphStore, ns: str) -> None:
    total = fill(store, ns)
    report = reembed(store, ns, default_embedder(), **as_admin())
    assert not report.changed and report.cues == 0 and report.total == total
    assert report.before == report.after == DEFAULT_TEXT
    with pytest.raises(MragentError, match="holds no memories"):
        reembed(store, f"t-{uuid.uuid4().hex[:12]}", default_embedder(), **as_admin())


# ------------------------------------------------ a database of its own ---


@pytest.fixture(params=ENGINES)
def lone_store(
    request: pytest.FixtureRequest, engine_urls: dict[str, str | None]
) -> Iterator[GraphStore]:
    """A store whose vector index no other namespace uses.

    FalkorDB: a private graph on the test server. Neo4j, Memgraph: the test
    database, only when it holds no namespace (a dimension change rebuilds the
    index every namespace shares); the 256-dimension index is restored after.
    """
    engine = request.param
    url = engine_urls[engine]
    if url is None:
        unavailable(engine, "nothing answers")
    assert url is not None
    if engine == "falkordb":
        parts = urlsplit(url)
        graph = f"reembed-{uuid.uuid4().hex[:12]}"
        opened = FalkorStore(
            parts.hostname or "127.0.0.1", parts.port or 6379, graph=graph, password=parts.password
        )
        try:
            yield opened
        finally:
            opened.close()
            client = FalkorDB(host=parts.hostname, port=parts.port, password=parts.password)
            client.select_graph(graph).delete()
            client.connection.close()
        return
    with open_store(url) as opened:
        others = [row["ns"] for row in opened.run("reembed_others", {"ns": ""})]
        if others:
            pytest.skip(
                f"{engine} database holds other namespaces ({', '.join(others[:5])}): a "
                "dimension change would rebuild their vector index (refusal tested above)"
            )
        try:
            yield opened
        finally:
            opened._run_schema("schema_vector_drop", {})
            opened._run_schema("schema_vector", {}, dimension=default_embedder().identity.dimension)


def test_a_dimension_change_rebuilds_the_vector_index(lone_store: GraphStore) -> None:
    store = lone_store
    ns = f"t-{uuid.uuid4().hex[:12]}"
    try:
        total = fill(store, ns)
        new = embedder_from_spec("hashing:128")
        with pytest.raises(Stop):
            reembed(store, ns, new, **as_admin(), progress=stop_after_first_batch, batch_size=4)
        with pytest.raises(ReembedInProgress):
            fence(store, ns, new)

        report = reembed(store, ns, new, **as_admin(), batch_size=4)
        assert report.resumed and report.index_rebuilt
        assert (report.before, report.after) == (DEFAULT_TEXT, "hashing:word+char3-blake2:128:norm")
        assert report.cues == total - 4 and report.total == total
        assert reembed_state(store, ns) == ReembedState(new.identity.as_text(), None, "")
        assert_space(store, ns, new)
        assert_native_search(store, ns, new)
        with pytest.raises(EmbeddingMismatch) as err:
            ingest(store, parse_corpus(CHAIN), ns, embedder=default_embedder())
        assert new.identity.as_text() in str(err.value) and DEFAULT_TEXT in str(err.value)
        # Naming none, a write uses the stamped embedder (the restamped spec: hashing:128).
        ingest(store, parse_corpus(CHAIN), ns)
        assert_space(store, ns, new)

        # And back: the index is rebuilt for 256 dimensions again.
        back = reembed(store, ns, default_embedder(), **as_admin())
        assert back.index_rebuilt and back.cues == total
        assert_space(store, ns, default_embedder())
        assert_native_search(store, ns, default_embedder())
    finally:
        store.run("delete_namespace", {"ns": ns})


# -------------------------------------------------------------------- CLI ---

cli = typer.Typer()
cli.command()(reembed_command)
runner = CliRunner()


def test_cli_reembed(falkordb_url: str) -> None:
    ns = f"t-{uuid.uuid4().hex[:12]}"
    with open_store(falkordb_url) as store:
        ingest(store, parse_corpus(CHAIN), ns)
        try:
            base = ["--ns", ns, "--db", falkordb_url]
            same = runner.invoke(cli, [*base, "--embedder", "hashing", "--principal", ADMIN])
            assert same.exit_code == 0, same.output
            assert "already uses hashing:word+char3-blake2:256:norm" in same.output

            bad = runner.invoke(cli, [*base, "--embedder", "bert", "--principal", ADMIN])
            assert bad.exit_code == 2
            assert "--embedder 'bert'" in bad.output and "hashing:DIM" in bad.output
            assert len(bad.output.strip().splitlines()) == 1

            nobody = runner.invoke(cli, [*base, "--embedder", "hashing:128"])
            assert nobody.exit_code == 2 and "--principal" in nobody.output

            missing = runner.invoke(
                cli, ["--ns", "t-nothing-here", "--db", falkordb_url, "--embedder", "hashing:128",
                      "--principal", ADMIN],
            )  # fmt: skip
            assert missing.exit_code == 1 and "holds no memories" in missing.output
            assert len(missing.output.strip().splitlines()) == 1
        finally:
            store.run("delete_namespace", {"ns": ns})


def test_cli_reembed_migrates(falkordb_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The command on a private graph: open_store is pointed at it.
    parts = urlsplit(falkordb_url)
    graph = f"reembed-cli-{uuid.uuid4().hex[:12]}"
    host, port, password = parts.hostname or "127.0.0.1", parts.port or 6379, parts.password
    monkeypatch.setattr(
        "mragent.cli.reembed.open_store",
        lambda db: FalkorStore(host, port, graph=graph, password=password),
    )
    ns = f"t-{uuid.uuid4().hex[:12]}"
    try:
        with FalkorStore(host, port, graph=graph, password=password) as store:
            ingest(store, parse_corpus(CHAIN), ns)
            args = ["--ns", ns, "--embedder", "hashing:128", "--principal", ADMIN]
            result = runner.invoke(cli, args)
            assert result.exit_code == 0, result.output
            assert "re-embedded" in result.output and "to hashing:word+char3-blake2:128:norm" in (
                result.output
            )
            assert "rebuilt the vector index for dimension 128" in result.output
            state = reembed_state(store, ns)
            assert state is not None and state.embedder == "hashing:word+char3-blake2:128:norm"
    finally:
        client = FalkorDB(host=host, port=port, password=password)
        client.select_graph(graph).delete()
        client.connection.close()


def test_a_session_reads_on_with_the_embedder_its_namespace_is_restamped_with(
    store: GraphStore, ns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A facade session that named no embedder follows a re-embedding made under it: its
    next recall reads with the namespace's new embedder (the old one is refused)."""
    session = open_memory(ns, principal="human:ana", store=store)
    session.remember("The build server is in Oslo.")
    assert session.recall("Where is the build server?").answer == "Oslo"  # reader kept
    new = ReversedEmbedder()
    reembed(store, ns, new, **as_admin())
    building = space.embedder_from_spec
    # The stamp names the test's embedder, which no spec builds: hand it over by name.
    monkeypatch.setattr(
        space,
        "embedder_from_spec",
        lambda spec, option: new if spec == new.spec else building(spec, option),
    )
    found = session.recall("Where is the build server?")
    assert found.answer == "Oslo"
    (reader,) = session._readers.values()
    assert reader.identity == new.identity
