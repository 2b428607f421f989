"""Every gene is live: on a case built for it, changing only that gene changes
the answer or its cost, and each test asserts which and how."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import numpy as np
import pytest

from mragent.core.corpus import parse_corpus
from mragent.core.embedding import HashingEmbedder
from mragent.core.genome import Fusion, Genome, PromptStrategy, Rerank
from mragent.core.retrieval.cue_search import CueIndex
from mragent.core.retrieval.fusion import Side, fuse
from mragent.core.retrieval.reconstruct import Candidate, Trail
from mragent.core.retrieval.rerank import personalized_pagerank, rerank
from mragent.core.retrieval.synthesis import assemble
from mragent.core.store.base import GraphStore
from mragent.memory.reader import MemoryReader
from tests.fixtures import ingest

# Acme's founder chain, plus a hub tag (Guild) that many contents mention.
GENE_CORPUS = {
    "contents": [
        {
            "id": "acme",
            "title": "Acme",
            "tags": ["Acme", "Jane Roe", "Guild"],
            "cues": [],
            "text": "Acme was founded by Jane Roe and joined the Guild.",
        },
        {
            "id": "roe",
            "title": "Jane Roe",
            "tags": ["Jane Roe", "Lisbon"],
            "cues": [],
            "text": "Jane Roe was born in Lisbon.",
        },
        {
            "id": "lisbon",
            "title": "Lisbon",
            "tags": ["Lisbon"],
            "cues": [],
            "text": "Lisbon lies on the Tagus river, far from the sea of doubt.",
        },
        *(
            {
                "id": f"member{i}",
                "title": f"Member {i}",
                "tags": [f"Member {i}", "Guild"],
                "cues": [],
                "text": f"Member {i} is a workshop in the Guild since 19{i}0.",
            }
            for i in range(6)
        ),
        {
            "id": "beta",
            "title": "Beta Mills",
            "tags": ["Beta Mills"],
            "cues": [],
            "text": "Beta Mills makes paper.",
        },
    ],
}
QUESTION = "Where was the founder of Acme born?"


@pytest.fixture(scope="module")
def memory(falkor_store: GraphStore) -> Iterator[MemoryReader]:
    ns = f"genes-{uuid.uuid4().hex[:8]}"
    ingest(falkor_store, parse_corpus(GENE_CORPUS), ns)
    yield MemoryReader(falkor_store, ns)
    falkor_store.run("delete_namespace", {"ns": ns})


def _keys(memory: MemoryReader, genome: Genome, question: str = QUESTION) -> list[str]:
    return [r.candidate.key for r in memory.reconstruct(question, genome).context.items]


def test_cueK_adds_entry_points(memory: MemoryReader) -> None:
    question = "Acme and Beta Mills"
    one = memory.reconstruct(question, Genome(cueK=1, traversalDepth=1))
    two = memory.reconstruct(question, Genome(cueK=2, traversalDepth=1))
    assert len(one.cues) == 1 and len(two.cues) == 2
    reached_one = {"acme", "beta"} & {r.candidate.key for r in one.context.items}
    reached_two = {"acme", "beta"} & {r.candidate.key for r in two.context.items}
    assert len(reached_one) == 1 and reached_two == {"acme", "beta"}


def test_efSearch_sets_the_hnsw_recall_ceiling() -> None:
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(4000, 32)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = [f"c{i}" for i in range(len(vectors))]
    index = _cue_index(ids, vectors)
    queries = rng.normal(size=(50, 32)).astype(np.float32)
    every = index.admitted(("shared",))

    def recall(ef: int) -> float:
        hits = 0
        for q in queries:
            q /= np.linalg.norm(q)
            exact = set(index.exact_dense(q, 16, every))
            hits += len(exact & set(index.dense(q, ef, every, k=16)))
        return hits / (16 * len(queries))

    low, high = recall(16), recall(256)
    assert low < high and high > 0.98
    assert memory_work(16) < memory_work(256)


def _cue_index(texts: list[str], vectors: np.ndarray) -> CueIndex:
    index = CueIndex(vectors.shape[1])
    index.add(
        {"id": text, "text": text, "scope": "shared", "embedding": vector}
        for text, vector in zip(texts, vectors, strict=True)
    )
    return index


def memory_work(ef: int) -> int:
    from mragent.core.retrieval.synthesis import Answer, Context
    from mragent.memory.reader import Reconstruction

    rec = Reconstruction("q", [], [], [], Context((), (), ""), Answer(None), cue_work=ef)
    return rec.work


def test_hybridAlpha_moves_between_sparse_and_dense() -> None:
    embedder = HashingEmbedder()
    texts = ["violinist", "renowned"]
    index = _cue_index(texts, embedder.embed_passages(texts))
    vector, every = embedder.embed_queries(["violinists"])[0], index.admitted(("shared",))
    # "violinists" shares no word with any cue, only character trigrams with "violinist".
    sparse_only = index.search("violinists", vector, Genome(hybridAlpha=0.0), every, 5)
    dense_only = index.search("violinists", vector, Genome(hybridAlpha=1.0), every, 5)
    assert sparse_only == [] and next(h.text for h in dense_only) == "violinist"


def test_fusion_methods_order_cues_differently() -> None:
    dense = {"a": 0.2, "b": 0.1, "c": 1.0, "d": 0.4}
    sparse = {"a": 4.4, "b": 0.6, "c": 0.1, "d": 4.3}
    orders = {
        m: [
            k
            for k, _ in sorted(
                fuse(m, Side.of(dense, str), Side.of(sparse, str), 0.5).items(),
                key=lambda kv: -kv[1],
            )
        ]
        for m in Fusion
    }
    # RRF sees only ranks (a is 1st and 3rd, d 2nd and 2nd); linear min-max keeps d's
    # sparse margin; DBSF's 3-sigma bounds compress sparse and let c's dense lead count.
    assert orders == {
        Fusion.RRF: ["a", "d", "c", "b"],
        Fusion.LINEAR: ["d", "a", "c", "b"],
        Fusion.DBSF: ["d", "c", "a", "b"],
    }


def test_traversalDepth_reaches_the_bridge(memory: MemoryReader) -> None:
    genome = Genome(cueK=1, hybridAlpha=0.0)
    depth1 = memory.reconstruct(QUESTION, genome.replace(traversalDepth=1))
    depth2 = memory.reconstruct(QUESTION, genome.replace(traversalDepth=2))
    assert "Lisbon" not in depth1.context.text  # provably missed at depth 1
    assert "Lisbon" in depth2.context.text
    assert depth2.hops == 2 and depth1.hops == 1 and depth2.work > depth1.work


def test_tagFanout_limits_expansion(memory: MemoryReader) -> None:
    genome = Genome(cueK=1, hybridAlpha=0.0, traversalDepth=2, pruneThreshold=0.0)
    narrow = memory.reconstruct("Acme", genome.replace(tagFanout=1))
    wide = memory.reconstruct("Acme", genome.replace(tagFanout=8))
    assert len(narrow.candidates) < len(wide.candidates)
    assert narrow.work < wide.work


def test_pruneThreshold_drops_weak_paths(memory: MemoryReader) -> None:
    genome = Genome(cueK=1, hybridAlpha=0.0, traversalDepth=3, tagFanout=8)
    loose = memory.reconstruct("Acme", genome.replace(pruneThreshold=0.0))
    strict = memory.reconstruct("Acme", genome.replace(pruneThreshold=0.4))
    assert min(c.evidence for c in strict.candidates) >= 0.4
    assert min(c.evidence for c in loose.candidates) < 0.4
    assert strict.work < loose.work


def test_maxContent_caps_the_context(memory: MemoryReader) -> None:
    genome = Genome(cueK=1, hybridAlpha=0.0, traversalDepth=2, tagFanout=8, pruneThreshold=0.0)
    small = memory.reconstruct("Acme", genome.replace(maxContent=2))
    large = memory.reconstruct("Acme", genome.replace(maxContent=8))
    assert len(small.context.items) == 2 and len(large.context.items) > 2
    assert small.context.tokens < large.context.tokens


def _candidate(key: str, trails: list[tuple[tuple[str, ...], float]]) -> Candidate:
    return Candidate(
        key,
        key,
        key.title(),
        f"{key} text",
        max(e for _, e in trails),
        len(trails),
        5 * len(trails),
        1,
        tuple(Trail(nodes, e, len(nodes) - 2) for nodes, e in trails),
    )


def test_rerank_gnn_lifts_multiply_supported_contents() -> None:
    single = _candidate("single", [(("c1", "t1", "single"), 0.50)])
    multi = _candidate(
        "multi",
        [
            (("c1", "t2", "multi"), 0.45),
            (("c2", "t3", "multi"), 0.40),
            (("c3", "t4", "multi"), 0.35),
        ],
    )
    pool = [single, multi]
    assert [r.candidate.key for r in rerank(pool, Rerank.NONE)] == ["single", "multi"]
    assert [r.candidate.key for r in rerank(pool, Rerank.GNN)] == ["multi", "single"]


def test_rerank_gnn_lifts_contents_sharing_tags_with_strong_ones() -> None:
    strong = _candidate("strong", [(("c1", "tA", "strong"), 0.9)])
    near = _candidate("near", [(("c2", "tA", "near"), 0.30)])
    far = _candidate("far", [(("c3", "tB", "far"), 0.32)])
    order = [r.candidate.key for r in rerank([strong, far, near], Rerank.GNN)]
    assert order == ["strong", "near", "far"]


def test_promptStrategy_changes_the_context(memory: MemoryReader) -> None:
    genome = Genome(cueK=1, hybridAlpha=0.0, traversalDepth=2, tagFanout=8, pruneThreshold=0.0)
    ranked = memory.reconstruct("Acme", genome).ranked
    full = assemble(ranked, PromptStrategy.EVIDENCE_FIRST, 10)
    terse = assemble(ranked, PromptStrategy.TERSE, 10)
    explicit = assemble(ranked, PromptStrategy.PRUNE_EXPLICIT, 10)
    assert len(terse.items) < len(full.items) and terse.tokens < full.tokens
    assert explicit.dropped and "Dropped as weak evidence" in explicit.text
    assert len(explicit.items) + len(explicit.dropped) == len(full.items)
    scores = [r.score for r in full.items]
    assert scores == sorted(scores, reverse=True)


def test_native_vector_index_chooses_the_same_cues_at_high_ef(memory: MemoryReader) -> None:
    genome = Genome(efSearch=256, cueK=5)
    for question in (QUESTION, "Beta Mills paper", "river Tagus", "workshop Guild member"):
        hnsw = [c.id for c in memory.reconstruct(question, genome).cues]
        native = [c.id for c in memory.reconstruct(question, genome, native_vector_index=True).cues]
        assert hnsw == native


def test_damping_sets_how_far_ppr_walks_from_the_entries() -> None:
    # a is one edge from the entry's tag, b two: the more often the walker follows an
    # edge rather than restarting at the entry cue, the more of its time b receives.
    near = _candidate("a", [(("cue", "t1", "a"), 1.0)])
    far = _candidate("b", [(("cue", "t1", "t2", "b"), 1.0)])

    def share_of_far(damping: float) -> float:
        scores = personalized_pagerank([near, far], {"cue": 1.0}, damping)
        return scores["b"] / scores["a"]

    assert share_of_far(0.95) > share_of_far(0.5) > share_of_far(0.05)
    ranked = rerank([near, far], Rerank.PPR, {"cue": 1.0}, damping=0.5)
    assert [r.candidate.id for r in ranked] == ["a", "b"]


def test_the_reader_hands_damping_to_ppr(memory: MemoryReader) -> None:
    genome = Genome(rerank=Rerank.PPR, graphWeight=2.0)
    low = memory.reconstruct(QUESTION, genome.replace(damping=0.05))
    high = memory.reconstruct(QUESTION, genome.replace(damping=0.95))
    assert [r.score for r in low.ranked] != [r.score for r in high.ranked]


def test_abstainCoverage_sets_how_much_of_the_question_the_context_must_cover(
    memory: MemoryReader,
) -> None:
    # The context holds the founder and the birthplace, nothing about a salary.
    question = "Where was the founder of Acme born, and what was her salary?"
    lenient = memory.reconstruct(question, Genome(abstainCoverage=0.0))
    strict = memory.reconstruct(question, Genome(abstainCoverage=1.0))
    assert lenient.context.items == strict.context.items
    assert not lenient.answer.abstained
    assert strict.answer.abstained
    # A question the context covers whole is answered even at the strictest setting.
    assert not memory.reconstruct(QUESTION, Genome(abstainCoverage=1.0)).answer.abstained


def test_abstainNames_sets_how_many_of_the_question_names_the_context_must_hold(
    memory: MemoryReader,
) -> None:
    # Acme and Lisbon are in the memory, Zorblatt is not: one name in three missing.
    question = "Where was the founder of Acme born, in Lisbon or in Zorblatt?"
    lenient = Genome(abstainCoverage=0.0, abstainNames=0.5)
    strict = Genome(abstainCoverage=0.0, abstainNames=1.0)
    assert not memory.reconstruct(question, lenient).answer.abstained
    assert memory.reconstruct(question, strict).answer.abstained
