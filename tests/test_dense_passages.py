"""Dense passage entry: passage vectors in the reader's HNSW index, following the change
feed and persisted with it, fused with BM25 by the cue-search genes on BM25's scale."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mragent.core.corpus import parse_corpus
from mragent.core.embedding import HashingEmbedder
from mragent.core.genome import PRESETS, Fusion, Genome
from mragent.core.retrieval.cue_search import BULK_THREADS_MIN, CueIndex, insert_threads
from mragent.core.retrieval.passages import PassageIndex
from mragent.core.store.base import GraphStore
from mragent.memory import index_files
from mragent.memory.principal import Principal
from mragent.memory.reader import MemoryReader
from mragent.memory.writer import MemoryWriter
from tests.fixtures import CHAIN, ingest

EMBEDDER = HashingEmbedder()
KREISLER = "Kreisler was a violinist."
# Mills of every text length, so BM25 tells them apart on "paper".
MILLS = [f"Mill {i} makes paper in Lisbon{' by the old river' * (i % 9)}." for i in range(39)]


def _row(i: int, text: str, vector: np.ndarray) -> dict[str, Any]:
    return {
        "id": f"id{i:02d}", "key": f"k{i:02d}", "title": f"T{i:02d}", "text": text,
        "scope": "shared", "forgotten": False, "recorded_at": 0.0, "superseded_at": None,
        "trust": "accepted", "trust_since": 0.0, "trust_at": [0.0], "trust_log": ["accepted"],
        "embedding": vector.tolist(), "v": 1,
    }  # fmt: skip


@pytest.fixture(scope="module")
def passages() -> PassageIndex:
    texts = [KREISLER, *MILLS]
    index = PassageIndex(EMBEDDER.dimension)
    vectors = EMBEDDER.embed_passages(texts)
    index.apply([_row(i, t, v) for i, (t, v) in enumerate(zip(texts, vectors, strict=True))], True)
    return index


def _scores(index: PassageIndex, question: str, genome: Genome, mask: Any = None) -> dict:
    mask = np.ones(len(index.ids), dtype=bool) if mask is None else mask
    vector = EMBEDDER.embed_queries([question])[0]
    hits = index.entry(question, vector, mask, genome).hits
    return dict(zip(hits.slots.tolist(), hits.scores.tolist(), strict=True))


def _best(scores: dict) -> int:
    return max(scores, key=lambda slot: (scores[slot], -slot))


# BM25 matches only the mills ("violinists" is no content's word); the hashing
# embedder's character trigrams put Kreisler nearest.
QUESTION = "violinists of paper"


def test_hybridAlpha_moves_passage_entry_between_bm25_and_dense(passages: PassageIndex) -> None:
    sparse = _scores(passages, QUESTION, Genome(hybridAlpha=0.0))
    bm25 = passages.sparse.scores(["violinists", "paper"], np.ones(len(passages.ids), bool))
    assert sparse == dict(zip(bm25.slots.tolist(), bm25.scores.tolist(), strict=True))
    assert 0 not in sparse  # BM25 alone never scores Kreisler
    dense = _scores(passages, QUESTION, Genome(hybridAlpha=1.0))
    assert _best(dense) == 0


def test_fused_passage_scores_are_bm25s_scores_in_the_fused_order(passages: PassageIndex) -> None:
    sparse = _scores(passages, QUESTION, Genome(hybridAlpha=0.0))
    for genome in (Genome(), Genome(hybridAlpha=1.0), Genome(fusion=Fusion.LINEAR)):
        fused = _scores(passages, QUESTION, genome)
        # The same population of values (BM25's best first), held by other passages.
        assert (
            sorted(fused.values(), reverse=True)
            == sorted(sparse.values(), reverse=True)[: len(fused)]
        )
        assert max(fused.values()) == max(sparse.values())


def test_efSearch_bounds_the_dense_passage_candidates(passages: PassageIndex) -> None:
    vector = EMBEDDER.embed_queries(["paper"])[0]
    every = np.ones(len(passages.ids), dtype=bool)
    assert len(passages.dense.search(vector, 16, every)) == 16
    assert len(passages.dense.search(vector, 64, every)) == 32  # DENSE_CANDIDATES
    # A dense-only fusion keeps what the beam found: efSearch 16 fuses 16 passages.
    narrow = _scores(passages, "paper", Genome(hybridAlpha=1.0, efSearch=16))
    wide = _scores(passages, "paper", Genome(hybridAlpha=1.0, efSearch=64))
    assert len(narrow) == 16 and len(wide) == 32


def test_fusion_method_changes_the_passage_order(passages: PassageIndex) -> None:
    # RRF sees ranks only: a mill ranked well on both sides beats Kreisler, first on one
    # side only; linear fusion keeps Kreisler's wide dense margin over the mills.
    rrf = _scores(passages, QUESTION, Genome(hybridAlpha=0.9))
    linear = _scores(passages, QUESTION, Genome(hybridAlpha=0.9, fusion=Fusion.LINEAR))
    assert _best(rrf) != 0 and _best(linear) == 0


def test_a_passage_the_view_hides_never_enters_however_near(passages: PassageIndex) -> None:
    hidden = np.ones(len(passages.ids), dtype=bool)
    hidden[0] = False
    vector = EMBEDDER.embed_queries([QUESTION])[0]
    assert 0 not in passages.dense.search(vector, 64, hidden)
    assert 0 not in _scores(passages, QUESTION, Genome(hybridAlpha=1.0), hidden)


def test_forgotten_passages_leave_the_dense_index() -> None:
    index = PassageIndex(EMBEDDER.dimension)
    vectors = EMBEDDER.embed_passages([KREISLER, MILLS[0]])
    index.apply([_row(0, KREISLER, vectors[0]), _row(1, MILLS[0], vectors[1])], True)
    vector = EMBEDDER.embed_queries(["violinist"])[0]
    every = np.ones(2, dtype=bool)
    assert set(index.dense.search(vector, 16, every)) == {0, 1}
    index.apply([{**_row(0, KREISLER, vectors[0]), "forgotten": True, "embedding": None}])
    assert set(index.dense.search(vector, 16, every)) == {1}


# --- the live reader, on every engine --------------------------------------------------

ANA = Principal("human", "ana")


def follows_the_feed_and_persists(
    store: GraphStore, ns: str, index_dir: Path, memories: MemoryWriter
) -> None:
    """Passage vectors come with the change feed, persist with the index copy and leave
    with a forgotten content (``ns`` holds CHAIN, written with a semantic embedder)."""
    first = MemoryReader(store, ns)
    assert len(first.index.passages.dense) == len(first.index.passages) > 0
    saved = list(index_dir.rglob("contents_hnsw.bin"))
    assert saved and stat.S_IMODE(os.stat(saved[0]).st_mode) == 0o600

    fact = memories.remember("The Lyra observatory is directed by Mara Voss.", principal=ANA)
    first.refresh()  # the change feed brings the new content's vector
    passages = first.index.passages
    vector = first.embedder.embed_queries(["Who runs the Lyra observatory?"])[0]
    every = np.ones(len(passages.ids), dtype=bool)
    near = passages.dense.search(vector, 64, every)
    slot = passages.slot_of[fact.id]
    assert max(near, key=near.__getitem__) == slot

    # A new process starts from the saved copy, the passage vectors included.
    index_files.save(first.index, index_dir)
    second = MemoryReader(store, ns)
    assert second.index.version == first.index.version
    assert second.index.passages.dense.search(vector, 64, every) == near
    question = "Who directs the Lyra observatory?"
    genome = PRESETS["default"]
    expected = first.reconstruct(question, genome).retrieved_keys
    assert second.reconstruct(question, genome).retrieved_keys == expected

    memories.forget(fact.id, principal=ANA, reason="test")
    second.refresh()
    assert slot not in second.index.passages.dense.search(vector, 64, every)


@pytest.mark.backend
def test_hashing_passages_enter_by_bm25_alone(store: GraphStore, ns: str) -> None:
    # Feature-hashing vectors count the words BM25 already weighs: no dense half.
    ingest(store, parse_corpus(CHAIN), ns)
    memory = MemoryReader(store, ns, index_dir=None)
    assert memory.identity.lexical and len(memory.index.passages.dense) == 0
    passages, (_, mask) = memory.index.passages, memory._masks()
    question = "Where was the founder of Acme born?"
    vector = memory.embedder.embed_queries([question])[0]
    fused = passages.entry(question, vector, mask, PRESETS["default"]).hits
    bm25 = passages.score(question, mask).hits
    assert fused.slots.tolist() == bm25.slots.tolist()
    assert fused.scores.tolist() == bm25.scores.tolist()


def test_only_a_large_full_build_inserts_on_several_threads(tmp_path: Path) -> None:
    cpus = len(os.sched_getaffinity(0))
    assert insert_threads(BULK_THREADS_MIN, bulk=True) == cpus
    assert insert_threads(BULK_THREADS_MIN - 1, bulk=True) == 1
    assert insert_threads(10 * BULK_THREADS_MIN, bulk=False) == 1
    # Below the threshold a full build is the one-thread build, byte for byte, every time
    # (a two-thread insert of these 600 vectors builds another graph nearly every run).
    vectors = np.random.default_rng(7).normal(size=(600, 32)).astype(np.float32)
    rows = [
        {"id": f"c{i:03d}", "text": f"cue {i:03d}", "scope": "shared", "embedding": vector}
        for i, vector in enumerate(vectors)
    ]
    graphs = []
    for n, bulk in enumerate((False, True, True)):
        cues = CueIndex(32)
        assert cues.add(rows, bulk=bulk) == len(rows)
        cues.hnsw.save_index(str(tmp_path / f"{n}.bin"))
        graphs.append((tmp_path / f"{n}.bin").read_bytes())
    assert graphs[0] == graphs[1] == graphs[2]


def test_vectors_read_back_follow_every_write_and_stay_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mragent.core.retrieval import passage_dense

    monkeypatch.setattr(passage_dense, "VECTOR_CACHE_BYTES", 3 * 4 * 8)  # three 8-d rows
    dense = passage_dense.DensePassages(8)
    unit = np.eye(8, dtype=np.float32)
    dense.add([(slot, unit[slot].tolist(), f"c{slot}") for slot in range(6)])
    assert np.array_equal(dense.vectors(np.arange(6)), unit[:6])
    assert np.array_equal(dense.vectors(np.array([4, 4, 1])), unit[[4, 4, 1]])
    dense.add([(4, unit[7].tolist(), "c4")])  # a corrected content's new vector
    assert np.array_equal(dense.vectors(np.array([4])), unit[[7]])
    dense.clear(1)  # forgotten: no vector any more
    assert not dense.vectors(np.array([1])).any()
    assert len(dense._kept) <= 3
