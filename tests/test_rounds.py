"""Multi-round reconstruction: one round is the pipeline as it was, later rounds
follow the tags a round's best contents hand on, and each round gene acts."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from mragent.core.corpus import load_corpus, parse_corpus, reference_corpus_path
from mragent.core.genome import Genome
from mragent.core.retrieval.reconstruct import traverse_params
from mragent.core.retrieval.rounds import ChainScores, Population, handed_tags
from mragent.core.store.base import GraphStore
from mragent.core.view import ReadView
from mragent.memory.audit import AuditLog
from mragent.memory.principal import Principal
from mragent.memory.reader import MemoryReader
from mragent.memory.writer import MemoryWriter
from tests.fixtures import ingest

PIN = Path(__file__).parent / "data" / "one_round_pin.json"

# A bridge question: the question names the film; only the film's passage names its
# director, and only the director's passage says where he was born. Distractors
# share the question's words without being on the chain.
CHAIN_CORPUS = {
    "contents": [
        {
            "id": "film",
            "title": "The Quiet Harbour",
            "tags": ["The Quiet Harbour", "Tomas Brandvold"],
            "cues": [],
            "text": "The Quiet Harbour is a 1961 film directed by Tomas Brandvold.",
        },
        {
            "id": "director",
            "title": "Tomas Brandvold",
            "tags": ["Tomas Brandvold", "Tromso"],
            "cues": [],
            "text": "Tomas Brandvold grew up in Tromso, a town in the north.",
        },
        *(
            {
                "id": f"harbour{i}",
                "title": f"Harbour {i}",
                "tags": [f"Harbour {i}", "Harbour"],
                "cues": [],
                "text": f"Harbour {i} is a quiet harbour where a film was shot in 19{i}5.",
            }
            for i in range(8)
        ),
    ],
}
CHAIN_QUESTION = "Where did the director of The Quiet Harbour grow up?"
ROUNDS = Genome(rounds=2, roundCues=2, roundDecay=0.7, hybridAlpha=0.3, traversalDepth=1)


@pytest.fixture
def chain_memory(store: GraphStore) -> Iterator[MemoryReader]:
    ns = f"rounds-{uuid.uuid4().hex[:8]}"
    ingest(store, parse_corpus(CHAIN_CORPUS), ns)
    yield MemoryReader(store, ns)
    store.run("delete_namespace", {"ns": ns})


def pinned_rows(memory: MemoryReader, genes: dict, questions: list[str]) -> list[dict]:
    """The rows the pin records, from this code."""
    genome, rows = Genome(**genes), []
    for question in questions:
        rec = memory.reconstruct(question, genome)
        rows.append(
            {
                "question": question,
                "cues": [h.text for h in rec.cues],
                "ranked": [[r.candidate.key, round(r.score, 6)] for r in rec.ranked],
                "context": [r.candidate.key for r in rec.context.items],
                "work": rec.work,
            }
        )
    return rows


def test_one_round_is_the_pipeline_as_it_was(store: GraphStore) -> None:
    """rounds=1 gives, on the reference corpus, exactly the rows the pipeline gave
    before rounds existed (recorded in tests/data/one_round_pin.json), in one round
    trip that asks for no tags."""
    pin = json.loads(PIN.read_text(encoding="utf-8"))
    corpus = load_corpus(reference_corpus_path())
    ns = f"pin-{uuid.uuid4().hex[:8]}"
    ingest(store, corpus, ns)
    try:
        memory = MemoryReader(store, ns)
        for name, recorded in pin.items():
            questions = [row["question"] for row in recorded["rows"]]
            assert pinned_rows(memory, recorded["genes"], questions) == recorded["rows"], name
        rec = memory.reconstruct(corpus.questions[0].question, Genome())
        assert rec.round_trips == 1
        assert all(c.tags == () for c in rec.candidates)
        assert traverse_params(ns, ReadView(), [], Genome())["hand_refs"] == 0
    finally:
        store.run("delete_namespace", {"ns": ns})


def test_a_second_round_follows_the_bridge_entity(chain_memory: MemoryReader) -> None:
    one = chain_memory.reconstruct(CHAIN_QUESTION, ROUNDS.replace(rounds=1))
    two = chain_memory.reconstruct(CHAIN_QUESTION, ROUNDS)
    assert one.round_trips == 1 and two.round_trips == 2
    first_two = [r.candidate.key for r in two.ranked[:2]]
    assert set(first_two) == {"film", "director"}
    assert "director" not in [r.candidate.key for r in one.ranked[:2]]
    # The director's passage came back from the second round trip, reached from the
    # film's tag "Tomas Brandvold": with a third round to come, it carries its own
    # specific tags for it; in the last round nothing is handed on, so none are read.
    assert {c.key: c for c in two.candidates}["director"].tags == ()
    three = chain_memory.reconstruct(CHAIN_QUESTION, ROUNDS.replace(rounds=3))
    assert "Tromso" in {c.key: c for c in three.candidates}["director"].tags


def test_rounds_stop_when_a_round_raises_nothing(chain_memory: MemoryReader) -> None:
    # Round 2 reaches the director; round 3 starts from him, and his only new tag
    # (Tromso) leads back to him alone: nothing rises, so no fourth round trip is asked.
    three = chain_memory.reconstruct(CHAIN_QUESTION, ROUNDS.replace(rounds=3))
    assert three.round_trips == 3
    assert [r.candidate.key for r in three.ranked[:2]] == [
        r.candidate.key for r in chain_memory.reconstruct(CHAIN_QUESTION, ROUNDS).ranked[:2]
    ]


def test_roundCues_sets_how_many_contents_hand_on(chain_memory: MemoryReader) -> None:
    # No path floor: every cue a content hands on leads somewhere, and costs its walk.
    genome = ROUNDS.replace(pruneThreshold=0.0)
    narrow = chain_memory.reconstruct(CHAIN_QUESTION, genome.replace(roundCues=1))
    wide = chain_memory.reconstruct(CHAIN_QUESTION, genome.replace(roundCues=6))
    assert wide.round_trips == narrow.round_trips == 2
    assert wide.work > narrow.work


def test_roundDecay_weighs_the_reached_contents_nearness() -> None:
    # Two contents reached from the same handing content: with roundDecay 0 both
    # inherit its value; with roundDecay 1 the one nearer the moved question leads.
    rng = np.random.default_rng(3)
    query = rng.normal(size=16).astype(np.float32)
    handing, near, far = (rng.normal(size=16) for _ in range(3))
    near = query + handing  # lies along the moved question
    vectors = {"s": handing, "near": near, "far": far}
    sample = rng.normal(size=(64, 16)).astype(np.float32)
    population = Population.of(lambda slots: sample[slots], np.arange(64))

    def chained(share: float) -> dict[str, float]:
        scores = ChainScores(
            query,
            lambda ids: np.asarray([vectors[i] for i in ids], dtype=np.float32),
            lambda cid: 0.0,
            (0.0, 1.0),
            population,
            dense_share=1.0,
            chain_share=share,
            key=str,
        )
        scores.value["s"] = 10.0  # the handing content is the best of its round
        scores.known(["s"])
        scores.chain("s", ["near", "far"])
        return scores.value

    flat, weighed = chained(0.0), chained(1.0)
    assert flat["near"] == pytest.approx(10.0) and flat["far"] == pytest.approx(10.0)
    assert weighed["near"] > weighed["far"]


def test_the_population_statistics_are_the_samples_own() -> None:
    rng = np.random.default_rng(5)
    sample = rng.normal(size=(300, 12)).astype(np.float32)
    population = Population.of(lambda slots: sample[slots], np.arange(300))
    query = rng.normal(size=12).astype(np.float32)
    cosines = (sample / np.linalg.norm(sample, axis=1, keepdims=True)) @ query
    assert population.stats(query) == pytest.approx((cosines.mean(), cosines.std()), rel=1e-4)


def test_a_tag_the_question_names_is_not_handed_on() -> None:
    assert handed_tags(["Tomas Brandvold", "Harbour"], "Who built the harbour?") == [
        "Tomas Brandvold"
    ]


def test_a_write_between_rounds_is_answered_from_the_refreshed_index(
    chain_memory: MemoryReader, audit_log_path: Path
) -> None:
    # The reader's index predates the new memory: the first round trip returns a content
    # it does not know, the reader refreshes and answers again with it.
    writer = MemoryWriter(chain_memory.store, chain_memory.ns, AuditLog(audit_log_path))
    writer.remember(
        "Tomas Brandvold left Tromso for Bergen in 1950.",
        principal=Principal("human", "ana"),
        title="Brandvold in Bergen",
        tags=["Tomas Brandvold", "Bergen"],
    )
    rec = chain_memory.reconstruct(CHAIN_QUESTION, ROUNDS)
    assert rec.version == chain_memory.version
    assert "Brandvold in Bergen" in {r.candidate.title for r in rec.ranked}
