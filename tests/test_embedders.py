"""Embedders: specs, identities, batching, and the stamp on reads as on writes.

The packaged models are loaded from their installed wheels (``pip install
'mragent[models]'`` and ``'mragent[minilm]'``); where one is absent its tests
skip with the reason, unless ``MRAGENT_REQUIRE_BACKENDS`` names it (``model``
for the default model, ``minilm``), which turns the skip into a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
import pytest
from falkordb import FalkorDB
from typer.core import TyperGroup
from typer.testing import CliRunner

from mragent.apps.baselines import FlatRetriever
from mragent.cli import app
from mragent.cli.commands import COMMANDS, load_command
from mragent.cli.common import embedder_namespace
from mragent.core.corpus import parse_corpus
from mragent.core.embedding import (
    DEFAULT_MODEL,
    MODELS,
    Embedder,
    EmbedderIdentity,
    HashingEmbedder,
    embed_all,
    embedder_from_spec,
    passage_text,
)
from mragent.core.embedding.endpoint import REQUEST_BATCH
from mragent.core.embedding.models import OFFLINE_ENVIRONMENT, PackagedModel
from mragent.core.errors import (
    BackendUnavailable,
    ConfigError,
    EmbedderUnavailable,
    EmbeddingMismatch,
)
from mragent.core.genome import PRESETS, REAL_MODEL, Genome
from mragent.core.retrieval.passage_dense import DensePassages
from mragent.core.store import open_store
from mragent.core.store.base import GraphStore
from mragent.core.store.falkordb import FalkorStore
from mragent.memory.audit import AuditLog
from mragent.memory.reader import MemoryReader
from mragent.memory.writer import MemoryWriter
from tests.conftest import REPO, required_backends
from tests.fixtures import CHAIN, feed_page, ingest
from tests.test_dense_passages import follows_the_feed_and_persists

runner = CliRunner()
PARIS = "Paris: Paris is the capital and largest city of France."
BERLIN = "Berlin: Berlin is the capital of Germany."
QUESTION = "What is the capital of France?"
CONTENT_VECTORS = (
    "MATCH (m:Content) WHERE m.ns = $ns "
    "RETURN m.title AS title, m.text AS text, m.embedding AS embedding ORDER BY m.key"
)


@pytest.fixture(autouse=True)
def shared_index_dimension(falkordb_url: str) -> Iterator[None]:
    """Give the shared graph its vector index at the default dimension back after each
    test: one that writes another dimension rebuilds the index every namespace shares."""
    yield
    with open_store(falkordb_url) as store:
        store.ensure_schema(HashingEmbedder().identity.dimension)


def real_model(spec: str) -> Embedder:
    """Load a packaged model from its wheel, or skip (fail when it is required)."""
    name = "model" if spec in ("model", DEFAULT_MODEL) else spec
    try:
        return embedder_from_spec(spec)
    except EmbedderUnavailable as exc:
        if name in required_backends():
            pytest.fail(f"{name} is required (MRAGENT_REQUIRE_BACKENDS) but {exc}")
        pytest.skip(f"{name} not installed: {exc}")


def stored_contents(store: GraphStore, ns: str) -> list[dict]:
    return store._execute("content_vectors", CONTENT_VECTORS, {"ns": ns})


# ------------------------------------------------------------------ specs ---


def test_identity_text_round_trips_a_model_name_with_colons() -> None:
    identity = EmbedderIdentity("openai", "nomic-embed-text:latest", 768, True)
    assert EmbedderIdentity.from_text(identity.as_text()) == identity
    with pytest.raises(ValueError):
        EmbedderIdentity.from_text("hashing:256")


@pytest.mark.parametrize(
    "spec",
    ["bert", "hashing:0", "hashing:x", "openai:", "openai:m", "openai:m@ftp://host/v1", "model:x"],
)
def test_a_bad_spec_is_one_config_error_naming_the_option(spec: str) -> None:
    with pytest.raises(ConfigError) as err:
        embedder_from_spec(spec, option="--embedder")
    assert f"--embedder {spec!r}" in str(err.value) and "openai:MODEL@URL" in str(err.value)


def test_an_endpoint_url_with_credentials_is_refused() -> None:
    with pytest.raises(ConfigError, match="MRAGENT_EMBEDDER_API_KEY"):
        embedder_from_spec("openai:m@http://user:secret@127.0.0.1:9/v1")


def test_a_missing_package_names_it_and_the_extra() -> None:
    absent = PackagedModel(
        "ghost", "ghost-model", "mragent-no-such-dist", ("mragent-no-such-dist",), "models",
        8, "a model nobody installed", lambda model: (np.zeros, np.zeros),
    )  # fmt: skip
    with pytest.raises(EmbedderUnavailable) as err:
        absent.identity()
    message = str(err.value)
    assert "mragent-no-such-dist" in message and "pip install 'mragent[models]'" in message
    assert "\n" not in message


def test_cli_missing_model_exits_2_with_one_line(
    falkordb_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ghost = PackagedModel(
        "ghost", "ghost-model", "mragent-no-such-dist", ("mragent-no-such-dist",), "models",
        8, "a model nobody installed", lambda model: (np.zeros, np.zeros),
    )  # fmt: skip
    monkeypatch.setitem(MODELS, "ghost", ghost)
    result = runner.invoke(
        app, ["recall", "Who?", "--ns", "nobody", "--db", falkordb_url, "--embedder", "ghost"]
    )
    assert result.exit_code == 2, result.output
    assert "mragent-no-such-dist" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_embed_all_batches_by_length_keeps_order_and_reports() -> None:
    embedder = HashingEmbedder(32)
    texts = ["a much longer text than the others here", "b", "cc cc", "d d d d", "e"]
    seen: list[int] = []
    out = embed_all(embedder.embed_passages, texts, 32, batch_size=2, progress=seen.append)
    np.testing.assert_allclose(out, embedder.embed_passages(texts), atol=1e-7)
    assert seen == [2, 2, 1]


def test_embed_all_refuses_vectors_of_another_size() -> None:
    with pytest.raises(EmbeddingMismatch, match="expected"):
        embed_all(HashingEmbedder(16).embed_passages, ["x"], 32)


# ----------------------------------------------------- stamp: reads, writes ---


def test_a_reader_gets_the_stamped_embedder_and_refuses_another(falkordb_url: str) -> None:
    # FalkorDB only: a 64-dimension namespace beside the test graph's 256-dimension index.
    ns = f"t-{uuid.uuid4().hex[:12]}"
    small = HashingEmbedder(64)
    with open_store(falkordb_url) as store:
        ingest(store, parse_corpus(CHAIN), ns, embedder=small)
        try:
            memory = MemoryReader(store, ns)  # no embedder named: the stamped one
            assert memory.embedder.identity == small.identity
            assert memory.embedder.spec == "hashing:64"
            with pytest.raises(EmbeddingMismatch) as err:
                MemoryReader(store, ns, embedder=HashingEmbedder())
            message = str(err.value)
            assert "refusing a read" in message
            assert small.identity.as_text() in message
            assert HashingEmbedder().identity.as_text() in message
        finally:
            store.run("delete_namespace", {"ns": ns})


def test_cli_recall_reads_a_namespace_written_with_another_embedder(
    falkordb_url: str,
) -> None:
    ns = f"t-{uuid.uuid4().hex[:12]}"
    with open_store(falkordb_url) as store:
        ingest(store, parse_corpus(CHAIN), ns, embedder=HashingEmbedder(64))
        try:
            base = ["recall", "Where was Jane Roe born?", "--ns", ns, "--db", falkordb_url]
            ok = runner.invoke(app, base)
            assert ok.exit_code == 0, ok.output
            assert "Lisbon" in ok.output
            other = runner.invoke(app, [*base, "--embedder", "hashing"])
            assert other.exit_code == 2
            assert "refusing a read with hashing:word+char3-blake2:256:norm" in other.output
            assert "hashing:word+char3-blake2:64:norm" in other.output
            env = runner.invoke(app, base, env={"MRAGENT_EMBEDDER": "hashing:32"})
            assert env.exit_code == 2 and ":32:norm" in env.output
            write = runner.invoke(
                app,
                ["remember", "Lisbon has trams.", "--ns", ns, "--db", falkordb_url,
                 "--principal", "human:ana", "--embedder", "hashing"],
            )  # fmt: skip
            assert write.exit_code == 2 and "refusing a write" in write.output
        finally:
            store.run("delete_namespace", {"ns": ns})


def _commands(command: Any, prefix: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], set]]:
    """Every leaf command under ``command`` with its parameter names."""
    if isinstance(command, TyperGroup):
        for name, sub in command.commands.items():
            yield from _commands(sub, (*prefix, name))
    else:
        yield prefix, {param.name for param in command.params}


def test_every_command_on_a_namespace_takes_embedder() -> None:
    on_memories = {
        path: params
        for name in COMMANDS
        for path, params in _commands(load_command(name), (name,))
        # The audit commands read the hash-chained log, not the memories.
        if path[0] != "audit" and {"ns", "corpus"} & params
    }
    assert len(on_memories) >= 18  # every memory, transfer, review, trust and corpus command
    assert [path for path, params in on_memories.items() if "embedder" not in params] == []


def test_commands_that_do_not_embed_still_refuse_another_embedder(
    falkordb_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    ns = f"t-{uuid.uuid4().hex[:12]}"
    with open_store(falkordb_url) as store:
        ingest(store, parse_corpus(CHAIN), ns)
        try:
            who = ["--principal", "human:ana"]
            at = ["--ns", ns, "--db", falkordb_url]
            for action, command in [
                ("read", ["history", "nothing"]),
                ("read", ["export", str(tmp_path / "out.json")]),
                ("read", ["review", "list"]),
                ("write", ["forget", "nothing", *who]),
                ("write", ["trust", "grant", "agent:bot", *who]),
            ]:
                result = runner.invoke(app, [*command, *at, "--embedder", "hashing:64"])
                assert result.exit_code == 2, (command, result.output)
                assert f"refusing a {action} with hashing:word+char3-blake2:64:norm" in (
                    " ".join(result.output.split())
                )
                assert "written with embedder hashing:word+char3-blake2:256:norm" in result.output
            assert not (tmp_path / "out.json").exists()
            same = runner.invoke(app, ["history", "nothing", *at, "--embedder", "hashing"])
            assert "refusing" not in same.output
            ghost = PackagedModel(
                "ghost", "ghost-model", "mragent-no-such-dist", ("mragent-no-such-dist",),
                "models", 8, "a model nobody installed", lambda model: (np.zeros, np.zeros),
            )  # fmt: skip
            monkeypatch.setitem(MODELS, "ghost", ghost)
            missing = runner.invoke(app, ["forget", "nothing", *who, *at, "--embedder", "ghost"])
            assert missing.exit_code == 2 and "mragent-no-such-dist" in missing.output
            assert len(missing.output.strip().splitlines()) == 1
        finally:
            store.run("delete_namespace", {"ns": ns})


def test_contents_carry_their_passage_embedding(store: GraphStore, ns: str) -> None:
    embedder = HashingEmbedder()
    seen: list[tuple[int, int]] = []
    corpus = parse_corpus(CHAIN)
    ingest(
        store,
        corpus,
        ns,
        embedder=embedder,
        batch_size=2,
        progress=lambda done, total: seen.append((done, total)),
    )
    rows = stored_contents(store, ns)
    assert len(rows) == len(CHAIN["contents"])
    texts = [passage_text(row["title"], row["text"]) for row in rows]
    stored = np.array([row["embedding"] for row in rows], dtype=np.float32)
    np.testing.assert_allclose(stored, embedder.embed_passages(texts), atol=1e-6)
    cues = feed_page(store, "index_cues", ns)
    vectors = np.array([row["embedding"] for row in cues], dtype=np.float32)
    np.testing.assert_allclose(
        vectors, embedder.embed_passages([c["text"] for c in cues]), atol=1e-6
    )
    batches = -(-len(corpus.contents) // 2)
    assert seen == [(done, batches) for done in range(1, batches + 1)]


def test_purge_erases_the_passage_embedding(store: GraphStore, ns: str) -> None:
    from mragent.memory.audit import AuditLog
    from mragent.memory.principal import parse_principal
    from mragent.memory.writer import MemoryWriter

    memories = MemoryWriter(store, ns, AuditLog())
    ana, bob = parse_principal("human:ana"), parse_principal("human:bob")
    first = memories.remember("Tomas keeps the spare keys in the red box.", principal=ana)
    query = "MATCH (m:Content) WHERE m.ns = $ns AND m.id = $id RETURN m.embedding AS embedding"
    before = store._execute("vector", query, {"ns": ns, "id": first.id})[0]["embedding"]
    assert len(before) == HashingEmbedder().dimension
    memories.purge(first.id, principal=bob, reason="personal data")
    after = store._execute("vector", query, {"ns": ns, "id": first.id})[0]["embedding"]
    assert not after


# ------------------------------------------------------- flat baselines ---


def test_flat_hybrid_fuses_the_bm25_and_dense_rankings() -> None:
    contents = [
        {"key": f"k{i}", "title": title, "text": text}
        for i, (title, text) in enumerate(
            [
                ("Acme", "Acme was founded by Jane Roe in Lisbon."),
                ("Roe", "Jane Roe founded companies."),
                ("Zeta", "Zeta makes founding easy for founders."),
                ("Tagus", "The Tagus flows through Lisbon."),
            ]
        )
    ]
    embedder = HashingEmbedder(64)
    question = "Who founded Acme?"
    bm25 = FlatRetriever(contents, "bm25-lucene", embedder).search(question, 4)
    dense = FlatRetriever(contents, "dense", embedder).search(question, 4)
    hybrid = FlatRetriever(contents, "hybrid", embedder).search(question, 4)

    def rrf(ranking: list[int]) -> dict[int, float]:
        return {i: 1 / (60 + rank) for rank, i in enumerate(ranking, start=1)}

    sides = rrf(bm25), rrf(dense)
    score = {i: sides[0].get(i, 0.0) + sides[1].get(i, 0.0) for i in set(bm25) | set(dense)}
    assert hybrid == sorted(score, key=lambda i: (-score[i], i))[:4]
    assert hybrid not in (bm25, dense)  # the case is built so that fusion moves a content


# ------------------------------------------------------------ real models ---


@pytest.mark.parametrize("spec", ["model", "minilm"])
def test_a_packaged_model_embeds_from_its_wheel(spec: str) -> None:
    embedder = real_model(spec)
    assert embedder.identity.kind == "model" and embedder.identity.dimension == 384
    assert "==" in embedder.identity.model  # the weights package and version are stamped
    passages = embedder.embed_passages([PARIS, BERLIN])
    question = embedder.embed_queries([QUESTION])[0]
    assert passages.shape == (2, 384) and passages.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-5)
    paris, berlin = passages @ question
    assert paris > berlin + 0.05  # the model, not hashing, tells the capitals apart
    np.testing.assert_allclose(embedder.embed_passages([PARIS])[0], passages[0], atol=1e-5)
    for variable, value in OFFLINE_ENVIRONMENT.items():
        assert os.environ[variable] == value
    # The stamped identity text builds the same model again.
    assert embedder_from_spec(embedder.identity.as_text()).identity == embedder.identity


def test_the_default_model_embeds_queries_and_passages_apart() -> None:
    embedder = real_model("model")
    text = ["Lisbon lies on the Tagus."]
    assert not np.allclose(embedder.embed_queries(text), embedder.embed_passages(text))


@pytest.mark.parametrize("spec", ["model", "minilm"])
def test_a_packaged_model_loads_without_a_network(spec: str) -> None:
    real_model(spec)
    unshare = shutil.which("unshare")
    probe = subprocess.run(
        [unshare or "unshare", "-n", "true"], capture_output=True, check=False
    ) if unshare else None  # fmt: skip
    if probe is None or probe.returncode != 0:
        pytest.skip("no network namespace can be made here (unshare -n)")
    code = (
        "from mragent.core.embedding import embedder_from_spec;"
        f"e = embedder_from_spec({spec!r}); print(e.embed_queries(['Who?']).shape)"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "ORT_"))}
    done = subprocess.run(
        ["unshare", "-n", sys.executable, "-c", code],
        capture_output=True, text=True, cwd=REPO, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "(1, 384)"


@pytest.fixture
def private_graph(
    falkordb_url: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[], GraphStore]]:
    """A FalkorDB graph of its own behind the CLI's ``--db`` (a dimension change rebuilds
    the vector index every namespace of a graph shares)."""
    parts = urlsplit(falkordb_url)
    graph = f"embedders-{uuid.uuid4().hex[:12]}"
    host, port = parts.hostname or "127.0.0.1", parts.port or 6379

    def opened(db: str | None = None) -> GraphStore:
        return FalkorStore(host, port, graph=graph, password=parts.password)

    for module in ("cli.ingest", "cli.reembed", "cli.memory", "facade.open"):
        monkeypatch.setattr(f"mragent.{module}.open_store", opened)
    yield opened
    client = FalkorDB(host=host, port=port, password=parts.password)
    if graph in client.list_graphs():  # a test that skipped before writing made none
        client.select_graph(graph).delete()
    client.connection.close()


PARAPHRASE_CORPUS = {
    "contents": [
        {"id": "organ", "title": "Old Cathedral",
         "text": "The Old Cathedral's organ was built by Ansel Brook in 1740."},
        {"id": "brook", "title": "Ansel Brook", "text": "Ansel Brook was born in Delft."},
        {"id": "violin", "title": "Cremona", "text": "Violins made in Cremona are prized."},
        {"id": "tagus", "title": "Tagus", "text": "The Tagus flows past Lisbon to the sea."},
        {"id": "mills", "title": "Beta Mills", "text": "Beta Mills was born of a paper trade."},
    ]
}  # fmt: skip


PARAPHRASE_QUESTION = (
    "In which town did the craftsman behind the church's pipe instrument come into the world?"
)


def test_a_paraphrased_first_hop_passage_enters_the_graph_densely(
    private_graph: Callable[[], GraphStore],
) -> None:
    model = real_model("model")
    # No word of the question is in the first-hop passage: only its meaning is.
    question = PARAPHRASE_QUESTION
    genome = Genome(cueK=2, traversalDepth=2)
    with private_graph() as store:
        ingest(store, parse_corpus(PARAPHRASE_CORPUS), "paraphrase", embedder=model)
        memory = MemoryReader(store, "paraphrase", index_dir=None)
        dense = memory.reconstruct(question, genome)
        # The same reader with its passage vectors gone: cue search alone enters.
        memory.index.passages.dense = DensePassages(memory.identity.dimension)
        without = memory.reconstruct(question, genome)
    # The passage itself is the first entry, seeded at its title's cue.
    assert dense.cues[0].text == "Old Cathedral" and dense.cues[0].seed is not None
    assert all(hit.seed is None for hit in without.cues)  # no word to seed it by BM25
    # Entered there, the bridge walk reaches the second hop by the title the passage names.
    assert set(dense.retrieved_keys[:2]) == {"organ", "brook"}
    assert set(without.retrieved_keys[:2]) != {"organ", "brook"}
    assert dense.timings_ms["embed"] > 0  # the question's embedding is a stage of its own


def test_passage_vectors_of_a_real_model_follow_the_feed_and_persist(
    private_graph: Callable[[], GraphStore], index_dir: Path
) -> None:
    model = real_model("model")
    with private_graph() as store:
        ingest(store, parse_corpus(CHAIN), "feed", embedder=model)
        memories = MemoryWriter(store, "feed", AuditLog(), embedder=model)
        follows_the_feed_and_persists(store, "feed", index_dir, memories)


def test_cli_ingest_recall_and_reembed_with_the_default_model(
    private_graph: Callable[[], GraphStore], tmp_path: Path
) -> None:
    model = real_model("model")
    ns = f"t-{uuid.uuid4().hex[:12]}"
    corpus = tmp_path / "chain.json"
    corpus.write_text(json.dumps(CHAIN), encoding="utf-8")
    db = ["--ns", ns]
    made = runner.invoke(app, ["ingest", str(corpus), *db, "--principal", "human:ana"])
    assert made.exit_code == 0, made.output
    moved = runner.invoke(app, ["reembed", *db, "--embedder", "model", "--principal", "human:ana"])
    assert moved.exit_code == 0, moved.output
    assert f"to {model.identity.as_text()}" in moved.output
    assert f"{len(CHAIN['contents'])} of {len(CHAIN['contents'])} contents" in moved.output
    with private_graph() as store:
        rows = stored_contents(store, ns)
        texts = [passage_text(row["title"], row["text"]) for row in rows]
        stored = np.array([row["embedding"] for row in rows], dtype=np.float32)
        np.testing.assert_allclose(stored, model.embed_passages(texts), atol=1e-4)
        assert store.run("get_space", {"ns": ns})[0]["embedder_spec"] == model.spec
    # No --embedder: the stamped model answers; hashing is refused, naming both.
    asked = runner.invoke(app, ["recall", "Where was Jane Roe born?", *db])
    assert asked.exit_code == 0, asked.output
    assert "Lisbon" in asked.output
    refused = runner.invoke(app, ["recall", "Where?", *db, "--embedder", "hashing"])
    assert refused.exit_code == 2
    assert model.identity.as_text() in refused.output and "hashing:" in refused.output


# ------------------------------------------------ an OpenAI-compatible server ---

KEY = "test-key-not-a-secret"


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    """A real embeddings server process on a loopback port (tests/embedding_server.py)."""
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.embedding_server", "--dim", "64", "--key", KEY],
        cwd=REPO, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture
def with_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("MRAGENT_EMBEDDER_API_KEY", KEY)


def served(url: str) -> int:
    with urllib.request.urlopen(url.removesuffix("/v1") + "/stats", timeout=10) as answer:
        return int(json.loads(answer.read())["requests"])


def test_the_endpoint_embedder_gets_the_servers_vectors(endpoint: str, with_key: None) -> None:
    embedder = embedder_from_spec(f"openai:hash-64@{endpoint}")
    assert embedder.identity == EmbedderIdentity("openai", "hash-64", 64, True)
    assert embedder.spec == f"openai:hash-64@{endpoint}"
    texts = [f"text number {i} about Lisbon" for i in range(REQUEST_BATCH * 2 + 3)]
    before = served(endpoint)
    vectors = embedder.embed_passages(texts)
    assert served(endpoint) - before == 3  # batched: 64 + 64 + 3 inputs
    # In order although the server answers in reverse (by each item's index).
    np.testing.assert_allclose(vectors, HashingEmbedder(64).embed_passages(texts), atol=1e-6)
    np.testing.assert_allclose(
        embedder.embed_queries(["Lisbon?"]), HashingEmbedder(64).embed_queries(["Lisbon?"]),
        atol=1e-6,
    )  # fmt: skip


def test_the_endpoint_key_comes_from_the_environment(
    endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MRAGENT_EMBEDDER_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(
        ConfigError, match=r"refused the key \(HTTP 401\); set MRAGENT_EMBEDDER_API_KEY"
    ):
        embedder_from_spec(f"openai:hash-64@{endpoint}")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    assert embedder_from_spec(f"openai:hash-64@{endpoint}").identity.dimension == 64


def test_the_endpoint_refuses_clearly(endpoint: str, with_key: None) -> None:
    with pytest.raises(ConfigError, match="HTTP 404"):
        embedder_from_spec(f"openai:no-such-model@{endpoint}")
    # A loopback port nothing listens on: unreachable (exit 1 on the command line).
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    with pytest.raises(BackendUnavailable, match="unreachable"):
        embedder_from_spec(f"openai:hash-64@http://127.0.0.1:{closed}/v1")


def test_cli_ingests_and_recalls_through_the_endpoint(
    endpoint: str, with_key: None, falkordb_url: str, tmp_path: Path
) -> None:
    ns = f"t-{uuid.uuid4().hex[:12]}"
    corpus = tmp_path / "chain.json"
    corpus.write_text(json.dumps(CHAIN), encoding="utf-8")
    spec = f"openai:hash-64@{endpoint}"
    db = ["--ns", ns, "--db", falkordb_url]
    try:
        made = runner.invoke(
            app, ["ingest", str(corpus), *db, "--principal", "human:ana", "--embedder", spec]
        )
        assert made.exit_code == 0, made.output
        before = served(endpoint)
        asked = runner.invoke(app, ["recall", "Where was Jane Roe born?", *db])
        assert asked.exit_code == 0, asked.output
        assert "Lisbon" in asked.output
        assert served(endpoint) > before  # the stamped spec reached the server
        with open_store(falkordb_url) as store:
            space = store.run("get_space", {"ns": ns})[0]
        assert space["embedder"] == "openai:hash-64:64:norm" and space["embedder_spec"] == spec
    finally:
        with open_store(falkordb_url) as store:
            store.run("delete_namespace", {"ns": ns})


def test_bench_and_evolve_derive_a_namespace_per_embedder() -> None:
    derived = "bench-musique-musique_100-0123456789"
    assert embedder_namespace(derived, None, None) == derived
    assert embedder_namespace(derived, None, HashingEmbedder()) == derived
    assert embedder_namespace(derived, None, HashingEmbedder(64)) == f"{derived}-hashing-64"
    assert embedder_namespace(derived, "mine", HashingEmbedder(64)) == derived  # --ns kept


def test_a_namespace_a_real_model_stamped_reads_with_the_real_model_default(
    private_graph: Callable[[], GraphStore],
) -> None:
    model = real_model("model")
    question = PARAPHRASE_QUESTION
    with private_graph() as store:
        ingest(store, parse_corpus(PARAPHRASE_CORPUS), "stamped", embedder=model)
        ingest(store, parse_corpus(PARAPHRASE_CORPUS), "hashed")
        real, hashed = MemoryReader(store, "stamped", index_dir=None), MemoryReader(store, "hashed")
        assert real.default_genome == PRESETS[REAL_MODEL] and real.default_genome.rounds == 2
        assert hashed.default_genome == PRESETS["default"]
        two, one = real.reconstruct(question), hashed.reconstruct(question)
    assert two.round_trips == 2 and one.round_trips == 1
    # The second round trip follows the organ's builder to his birthplace.
    assert set(two.retrieved_keys[:2]) == {"organ", "brook"}
