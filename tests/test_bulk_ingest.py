"""Bulk ingest into an empty namespace (``ingest_bulk`` inside ``GraphStore.bulk_load``).

It writes exactly the graph the ordinary path writes; the window pauses FalkorDB's AOF
rewrites and snapshots only while it is open, and a process killed inside it leaves
them restored by the next store opened; an ``mragent ingest`` killed midway is
completed by a re-run into the same graph as one clean ingest.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mragent.apps.synthetic import generate
from mragent.core.corpus import Content, Corpus, Link
from mragent.core.errors import BackendUnavailable, QueryError
from mragent.core.extract import RuleExtractor
from mragent.core.store import embedded, open_store
from mragent.core.store.base import GraphStore
from mragent.core.store.falkordb import BULK_KEY
from mragent.memory.audit import AuditLog
from mragent.memory.ingest import namespace_stats
from mragent.memory.principal import Principal
from mragent.memory.writer import MemoryWriter
from tests.conftest import unavailable
from tests.fixtures import TESTER, ingest

# Properties that differ between two writes of the same input into two namespaces: the
# namespace, random ids, record times (and the seal over them), namespace versions.
VOLATILE = {
    "ns",
    "id",
    "lineage",
    "recorded_at",
    "valid_from",
    "trust_at",
    "trust_since",
    "seal",
    "v",
}
_NODES = (
    "MATCH (n) WHERE n.ns = $ns AND n.scope = $scope "
    "RETURN labels(n)[0] AS label, properties(n) AS props"
)
_EDGES = (
    "MATCH (s)-[r]->(t) WHERE s.ns = $ns AND s.scope = $scope "
    "RETURN labels(s)[0] AS label, coalesce(s.text, s.name, s.key) AS src, type(r) AS kind, "
    "coalesce(t.name, t.key) AS dst, properties(r) AS props"
)
REWRITE = "auto-aof-rewrite-percentage"


def _stable(props: dict[str, Any]) -> str:
    kept = {key: value for key, value in props.items() if key not in VOLATILE}
    return json.dumps(kept, sort_keys=True, default=list)


def graph(store: GraphStore, ns: str, scope: str) -> tuple[list[str], list[tuple[str, ...]]]:
    """Every node (label and stable properties) and edge (ends, kind, properties) of
    ``ns``/``scope``, sorted."""
    params = {"ns": ns, "scope": scope}
    nodes = sorted(
        f"{row['label']} {_stable(row['props'])}" for row in store._execute("n", _NODES, params)
    )
    edges = sorted(
        (row["label"], row["src"], row["kind"], row["dst"], _stable(row["props"]))
        for row in store._execute("e", _EDGES, params)
    )
    return nodes, edges


def _corpus(size: int) -> Corpus:
    return generate(size, seed=3)


def _assert_no_duplicate_edge(edges: list[tuple[str, ...]]) -> None:
    ends = [edge[:4] for edge in edges]
    assert len(ends) == len(set(ends))


def test_a_bulk_load_writes_the_graph_the_ordinary_path_writes(store: GraphStore) -> None:
    corpus = _corpus(900)
    bulk_ns, merged_ns = (f"t-{uuid.uuid4().hex[:12]}" for _ in range(2))
    try:
        # batch_size 100: tags, cues and links recur across batches (merged, not created).
        bulk = ingest(store, corpus, bulk_ns, batch_size=100)
        # A memory in another scope makes the namespace not empty: the ordinary path.
        other = Corpus(contents=[Content(key="elsewhere", text="Another scope's memory.")])
        ingest(store, other, merged_ns, scope="other")
        merged = ingest(store, corpus, merged_ns, batch_size=100)
        assert bulk.bulk and not merged.bulk
        scope = "shared"
        got, want = graph(store, bulk_ns, scope), graph(store, merged_ns, scope)
        assert len(got[0]) > len(corpus.contents) and len(got[1]) > 2 * len(corpus.contents)
        assert got == want
        _assert_no_duplicate_edge(got[1])
        # Ingesting again adds nothing (the namespace is no longer empty: merged).
        again = ingest(store, corpus, bulk_ns, batch_size=100)
        assert not again.bulk and again.nodes_after == bulk.nodes_after
        assert graph(store, bulk_ns, scope) == got
    finally:
        for ns in (bulk_ns, merged_ns):
            store.run("delete_namespace", {"ns": ns})


def test_a_load_in_many_batches_writes_the_graph_one_batch_writes(store: GraphStore) -> None:
    """Tags recur across batches, first mentioned and later a title: the updates of a
    tag met again (its primary flag, its alias keys) leave the nodes one batch creates,
    and a link two batches write (read forward in one, backward in the other) has the
    weight, and so the rank, one batch gives it."""
    corpus = _corpus(600)
    many, one = (f"t-{uuid.uuid4().hex[:12]}" for _ in range(2))
    try:
        ingest(store, corpus, many, batch_size=50)
        ingest(store, corpus, one, batch_size=len(corpus.contents))
        (nodes, edges), (want_nodes, want_edges) = (
            graph(store, many, "shared"),
            graph(store, one, "shared"),
        )
        assert sum(node.startswith("Tag") and '"primary": true' in node for node in nodes) > 10
        assert nodes == want_nodes
        assert len(edges) > 1000
        assert edges == want_edges
    finally:
        for ns in (many, one):
            store.run("delete_namespace", {"ns": ns})


def test_a_tag_deleted_since_an_earlier_batch_stops_the_ingest_before_a_batch_writes(
    store: GraphStore,
) -> None:
    """A batch finds the tags earlier batches wrote by their handles. One deleted in
    between (by another writer) ends the ingest at the next batch naming it, which writes
    nothing, where a lookup by name would have made a bare tag again; a re-run completes
    the graph a clean ingest writes."""
    corpus = _corpus(300)
    model = RuleExtractor().fit(corpus.contents)
    first, third = (
        {tag for c in corpus.contents[at : at + 100] for tag in model.extract(c).tags}
        for at in (0, 200)
    )
    gone = sorted(first & third)[0]
    ns, clean = (f"t-{uuid.uuid4().hex[:12]}" for _ in range(2))

    def delete_after_second(done: int, total: int) -> None:
        if done == 2:  # the third batch was built meanwhile, with the first one's handles
            store._execute(
                "t",
                "MATCH (t:Tag {ns: $ns, name: $name}) DETACH DELETE t",
                {"ns": ns, "name": gone},
            )

    try:
        with pytest.raises(QueryError, match="batch 3: another writer changed the namespace"):
            ingest(store, corpus, ns, batch_size=100, progress=delete_after_second)
        assert namespace_stats(store, ns)["contents"] == 200
        named = "MATCH (t:Tag {ns: $ns, name: $name}) RETURN count(t) AS n"
        assert store._execute("t", named, {"ns": ns, "name": gone})[0]["n"] == 0
        ingest(store, corpus, ns, batch_size=100)
        ingest(store, corpus, clean, batch_size=100)
        assert graph(store, ns, "shared") == graph(store, clean, "shared")
    finally:
        for name in (ns, clean):
            store.run("delete_namespace", {"ns": name})


def test_a_write_landing_during_a_bulk_load_stops_it_before_a_name_is_created_twice(
    store: GraphStore, tmp_path: Path
) -> None:
    """A bulk load creates each tag and cue its run sends first, which is right only while
    nothing else writes into the namespace. Another writer (its own audit log: another
    host's) remembers a text naming tags the third batch would create: that batch finds the
    namespace past the version the load left and writes nothing, and the re-run merges
    into a graph with each name once."""
    corpus = _corpus(300)
    model = RuleExtractor().fit(corpus.contents)
    earlier = {tag for c in corpus.contents[:200] for tag in model.extract(c).tags}
    text = next(c.text for c in corpus.contents[200:] if set(model.extract(c).tags) - earlier)
    ns = f"t-{uuid.uuid4().hex[:12]}"
    other = MemoryWriter(store, ns, AuditLog(tmp_path / "elsewhere.jsonl"))

    def remember_after_second(done: int, total: int) -> None:
        if done == 2:
            other.remember(text, principal=Principal("human", "elsewhere"))

    twice = (
        "MATCH (t:Tag {ns: $ns}) WITH t.name AS name, count(t) AS n WHERE n > 1 "
        "RETURN count(name) AS names"
    )
    try:
        with pytest.raises(QueryError, match="batch 3: another writer changed the namespace"):
            ingest(store, corpus, ns, batch_size=100, progress=remember_after_second)
        assert namespace_stats(store, ns)["contents"] == 201
        ingest(store, corpus, ns, batch_size=100)
        assert namespace_stats(store, ns)["contents"] == 301
        assert store._execute("t", twice, {"ns": ns})[0]["names"] == 0
    finally:
        store.run("delete_namespace", {"ns": ns})


def test_a_link_the_corpus_gives_weighs_the_same_in_every_batch(store: GraphStore) -> None:
    """The link Alpha Town -> Beta Village is given (0.123) and also computed backward
    from the second content (its primary tag is the target): each batch writing it must
    send the given weight, whether the two contents share a batch or not."""
    contents = [
        Content(key="a", title="Alpha Town", text="Alpha Town lies near Beta Village."),
        Content(key="b", title="Beta Village", text="Beta Village trades with Alpha Town."),
    ]
    corpus = Corpus(contents, [], [Link("Alpha Town", "Beta Village", 0.123)])
    apart, together = (f"t-{uuid.uuid4().hex[:12]}" for _ in range(2))
    try:
        ingest(store, corpus, apart, batch_size=1)
        ingest(store, corpus, together, batch_size=2)
        weights = {
            ns: [
                json.loads(edge[4])["weight"]
                for edge in graph(store, ns, "shared")[1]
                if edge[1:4] == ("Alpha Town", "LINKED_TO", "Beta Village")
            ]
            for ns in (apart, together)
        }
        assert weights == {apart: [0.123], together: [0.123]}
    finally:
        for ns in (apart, together):
            store.run("delete_namespace", {"ns": ns})


def _config(store: GraphStore, name: str) -> str:
    return str(store._setting(name))  # type: ignore[attr-defined]


def test_the_window_pauses_rewrites_and_snapshots_and_restores_them(
    falkor_store: GraphStore,
) -> None:
    before = {name: _config(falkor_store, name) for name in (REWRITE, "save", "appendfsync")}
    assert before[REWRITE] != "0"
    with pytest.raises(RuntimeError), falkor_store.bulk_load():
        assert _config(falkor_store, REWRITE) == "0" and _config(falkor_store, "save") == ""
        assert _config(falkor_store, "appendfsync") == before["appendfsync"]  # never relaxed
        with falkor_store.bulk_load():  # a second window pauses and restores nothing
            pass
        assert _config(falkor_store, REWRITE) == "0"
        raise RuntimeError("the load failed")
    assert {name: _config(falkor_store, name) for name in before} == before


_HOLD = """
import sys, time
from mragent.core.errors import BackendUnavailable, QueryError
from mragent.core.extract import RuleExtractor
from mragent.core.store import embedded, open_store
with open_store(sys.argv[1]) as store, store.bulk_load():
    print("open", flush=True)
    time.sleep(120)
"""


def _child_env() -> dict[str, str]:
    root = str(Path(__file__).resolve().parents[1])
    return {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}


def test_a_window_whose_holder_was_killed_is_closed_by_the_next_store(
    falkordb_url: str,
) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, falkordb_url], stdout=subprocess.PIPE, env=_child_env()
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"open"
        with open_store(falkordb_url) as store:  # the holder is alive: left alone
            assert _config(store, REWRITE) == "0"
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(30)
    with open_store(falkordb_url) as store:
        assert _config(store, REWRITE) != "0"
        assert store._db.execute_command("GET", BULK_KEY) is None  # type: ignore[attr-defined]


@pytest.fixture
def big_corpus(tmp_path: Path) -> Iterator[Path]:
    """A corpus file large enough that its ingest runs for several batches."""
    path = tmp_path / "big.json"
    contents = [{"id": c.key, "title": c.title, "text": c.text} for c in _corpus(6000).contents]
    path.write_text(json.dumps({"format": "mragent-corpus/1", "contents": contents}))
    yield path


def _cli_ingest(url: str, corpus: Path, ns: str) -> subprocess.Popen[bytes]:
    entry = "from mragent.cli import main; main()"
    command = [sys.executable, "-c", entry, "ingest", str(corpus), "--ns", ns]
    env = {**_child_env(), "MRAGENT_DB": url, "MRAGENT_PRINCIPAL": str(TESTER)}
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


@pytest.fixture
def private_falkordb(tmp_path: Path) -> Iterator[str]:
    """An embedded FalkorDB of this test's own. After this test's sequence, the shared
    server's graph kept MemorySpace nodes without properties, and every later
    ``namespaces`` query failed ("Attempted to access undefined attribute"), whichever
    ingest path ran; a server of its own keeps that out of the other tests."""
    try:
        server = embedded.ensure_running(tmp_path / "home")
    except BackendUnavailable as exc:
        unavailable("falkordb", str(exc))
    yield server.secret_url
    embedded.stop(tmp_path / "home")


def test_an_ingest_killed_midway_is_completed_by_a_rerun(
    private_falkordb: str, big_corpus: Path
) -> None:
    falkordb_url = private_falkordb
    killed_ns, clean_ns = (f"t-{uuid.uuid4().hex[:12]}" for _ in range(2))
    store = open_store(falkordb_url)
    try:
        run = _cli_ingest(falkordb_url, big_corpus, killed_ns)
        deadline = time.monotonic() + 300
        written = 0
        while written == 0 and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
            written = namespace_stats(store, killed_ns).get("contents", 0)
        assert run.poll() is None, "the ingest ended before it could be killed"
        run.send_signal(signal.SIGKILL)
        run.wait(30)
        partial = namespace_stats(store, killed_ns)["contents"]
        assert 0 < partial < 6000  # killed midway: some whole batches written
        assert partial % 500 == 0
        rerun = _cli_ingest(falkordb_url, big_corpus, killed_ns)
        _, err = rerun.communicate(timeout=600)
        assert rerun.returncode == 0, err.decode()[-2000:]
        clean = _cli_ingest(falkordb_url, big_corpus, clean_ns)
        _, err = clean.communicate(timeout=600)
        assert clean.returncode == 0, err.decode()[-2000:]
        assert namespace_stats(store, killed_ns) == namespace_stats(store, clean_ns)
        got, want = graph(store, killed_ns, "shared"), graph(store, clean_ns, "shared")
        assert len([node for node in got[0] if node.startswith("Content ")]) == 6000
        assert got == want
        _assert_no_duplicate_edge(got[1])
        assert _config(store, REWRITE) != "0"  # the killed load's window was closed
    finally:
        for ns in (killed_ns, clean_ns):
            store.run("delete_namespace", {"ns": ns})
        store.close()
