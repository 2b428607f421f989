"""Query-shape tests: a recording executor captures what the product sends."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any

from mragent.core.genome import Genome
from mragent.core.retrieval.cue_search import CueHit
from mragent.core.retrieval.reconstruct import traverse
from mragent.core.store.base import Capabilities, GraphStore, Rows
from mragent.core.view import ReadView
from tests.fixtures import INJECTIONS


class RecordingStore(GraphStore):
    """Records (name, text, params) and answers with no rows: not a database."""

    def __init__(self, engine: str = "falkordb") -> None:
        self.capabilities = Capabilities(engine, "distance")
        self.url = "recording://"
        self.calls: list[tuple[str, str, dict[str, Any]]] = []

    def _execute(self, name: str, text: str, params: dict[str, Any]) -> Rows:
        self.calls.append((name, text, params))
        return []

    @contextmanager
    def _transaction(self):  # type: ignore[override]
        yield self

    def _execute_schema(self, name: str, statement: str) -> None:
        self.calls.append((name, statement, {}))

    def erase_residue(self) -> None:
        pass

    def close(self) -> None:
        pass


VIEW = ReadView()


def _cue(text: str, seed: str | None = None) -> CueHit:
    return CueHit(id=text, text=text, dense=0.5, sparse=0.5, fused=0.5, score=1.0, seed=seed)


def test_genes_reach_the_query_as_parameters_or_the_depth_bound() -> None:
    store = RecordingStore()
    genome = Genome(traversalDepth=3, tagFanout=2, pruneThreshold=0.25, maxContent=7)
    traverse(store, "ns1", VIEW, [_cue("a")], genome)
    [(name, text, params)] = store.calls
    assert name == "traverse"
    assert "[e:LINKED_TO*1..3]" in text and "r.rank <= $fanout" in text
    assert params["fanout"] == 2 and params["prune"] == 0.25 and params["limit"] == 14
    assert params["ns"] == "ns1" and params["cue_k"] == genome.cueK
    assert params["candidates"] == [{"id": "a", "score": 1.0, "seed": None}]
    assert params["scopes"] == ["shared"] and params["trust"] == ["accepted"]


def test_the_view_picks_the_references_rank_the_traversal_follows() -> None:
    for view, rank in (
        (ReadView(), "r.rank <= $fanout"),
        (ReadView(include_pending=True), "r.rank_pending <= $fanout"),
        (ReadView(as_of=1.0), "r.rank_all <= $fanout"),
    ):
        store = RecordingStore()
        traverse(store, "n", view, [_cue("a")], Genome())
        assert rank in store.calls[0][1]


def test_user_strings_never_enter_the_query_text() -> None:
    for payload in INJECTIONS:
        store = RecordingStore()
        traverse(store, payload, VIEW, [_cue(payload)], Genome())
        [(_, text, params)] = store.calls
        assert payload not in text
        assert params["ns"] == payload and params["candidates"][0]["id"] == payload


def test_depth_is_the_only_text_that_changes_between_genomes() -> None:
    texts = set()
    for genome in (Genome(), Genome(cueK=9, tagFanout=8, pruneThreshold=0.0, maxContent=20)):
        store = RecordingStore()
        traverse(store, "n", VIEW, [_cue("a")], genome)
        texts.add(store.calls[0][1])
    assert len(texts) == 1
    store = RecordingStore()
    traverse(store, "n", VIEW, [_cue("a")], Genome(traversalDepth=4))
    assert store.calls[0][1] != texts.pop()


def test_no_candidates_still_checks_the_version_in_one_round_trip() -> None:
    store = RecordingStore()
    assert traverse(store, "n", VIEW, [], Genome()) is None  # no MemorySpace row came back
    [(name, _, params)] = store.calls
    assert name == "traverse" and params["candidates"] == []


def test_engine_dialect_comes_from_files() -> None:
    falkor, neo = RecordingStore("falkordb"), RecordingStore("neo4j")
    for store in (falkor, neo):
        store.ensure_schema(8)
    falkor_text = " ".join(t for _, t, _ in falkor.calls)
    neo_text = " ".join(t for _, t, _ in neo.calls)
    assert "CREATE VECTOR INDEX FOR (c:Cue)" in falkor_text and "dimension: 8" in falkor_text
    assert "cue_embedding IF NOT EXISTS" in neo_text and "`vector.dimensions`: 8" in neo_text


def test_the_bridge_walk_shares_the_traversal_round_trip() -> None:
    store = RecordingStore()
    traverse(store, "n", VIEW, [_cue("a", seed="seed-1")], Genome(traversalDepth=2))
    [(name, _, params)] = store.calls
    assert name == "traverse" and params["candidates"][0]["seed"] == "seed-1"
    assert params["bridges"] is True
    shallow = RecordingStore()
    traverse(shallow, "n", VIEW, [_cue("a", seed="seed-1")], Genome(traversalDepth=1))
    assert shallow.calls[0][2]["bridges"] is False
