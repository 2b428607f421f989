"""The incremental BM25 index: bm25s' scores, whatever the order documents came and went in."""

from __future__ import annotations

import random
from pathlib import Path

import bm25s
import numpy as np
import pytest

from mragent.core.corpus import load_corpus
from mragent.core.paths import shipped
from mragent.core.retrieval.cue_search import population_ranks, top_positions
from mragent.core.retrieval.slot_keys import SlotKeys
from mragent.core.retrieval.sparse_index import SparseHits, SparseIndex
from mragent.core.text import content_words

QUESTIONS = (
    "In which year was the first bell cast at Veltrane Works?",
    "Who founded the company that built the harbour crane?",
    "river mill foundry founder born",
    "a question sharing no word at all: zyzzyva",
)


@pytest.fixture(scope="module")
def documents() -> list[list[str]]:
    corpus = load_corpus(shipped("_corpus/reference.json", "corpus/reference.json"))
    return [content_words(f"{c.title or ''} {c.text}") for c in corpus.contents]


def _dense(index: SparseIndex, terms: list[str], mask: np.ndarray, size: int) -> np.ndarray:
    hits = index.scores(terms, mask)
    out = np.zeros(size)
    out[hits.slots] = hits.scores
    return out


def test_scores_equal_bm25s_lucene(documents: list[list[str]]) -> None:
    index = SparseIndex()
    for slot, tokens in enumerate(documents):
        index.add(slot, tokens)
    reference = bm25s.BM25(method="lucene", k1=1.5, b=0.75, dtype="float64")
    reference.index(documents, show_progress=False)
    every = np.ones(len(documents), dtype=bool)
    checked = 0
    for question in QUESTIONS:
        terms = list(dict.fromkeys(content_words(question)))
        known = [t for t in terms if t in reference.vocab_dict]
        expected = reference.get_scores(known) if known else np.zeros(len(documents))
        ours = _dense(index, terms, every, len(documents))
        np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-6)
        checked += int(np.count_nonzero(expected))
    assert checked > 20  # the questions do score documents


def test_scores_do_not_depend_on_history(documents: list[list[str]]) -> None:
    rng = random.Random(3)
    fresh = SparseIndex()
    for slot, tokens in enumerate(documents):
        fresh.add(slot, tokens)
    # Another history: documents arrive shuffled (at other slots), some are removed, and
    # their text comes back under new slots, as a reader's feed would deliver it.
    churned = SparseIndex()
    order = list(range(len(documents)))
    rng.shuffle(order)
    slot_of: dict[int, int] = {}
    for doc in order:
        slot_of[doc] = len(slot_of)
        churned.add(slot_of[doc], documents[doc])
    next_slot = len(slot_of)
    for doc in rng.sample(order, 20):
        churned.remove(slot_of[doc])
        slot_of[doc] = next_slot
        churned.add(next_slot, documents[doc])
        next_slot += 1
    for question in QUESTIONS:
        terms = content_words(question)
        a = fresh.scores(terms, np.ones(len(documents), dtype=bool))
        b = churned.scores(terms, np.ones(next_slot, dtype=bool))
        by_doc_a = dict(zip(a.slots.tolist(), a.scores.tolist(), strict=True))
        by_slot_b = dict(zip(b.slots.tolist(), b.scores.tolist(), strict=True))
        by_doc_b = {doc: by_slot_b[slot] for doc, slot in slot_of.items() if slot in by_slot_b}
        assert by_doc_a.keys() == by_doc_b.keys()
        for doc, score in by_doc_a.items():
            assert by_doc_b[doc] == pytest.approx(score, abs=1e-12)


def test_the_mask_is_the_population(documents: list[list[str]]) -> None:
    index = SparseIndex()
    for slot, tokens in enumerate(documents):
        index.add(slot, tokens)
    half = np.zeros(len(documents), dtype=bool)
    half[::2] = True
    subset = SparseIndex()
    for slot in range(0, len(documents), 2):
        subset.add(slot, documents[slot])
    terms = content_words(QUESTIONS[2])
    np.testing.assert_allclose(
        _dense(index, terms, half, len(documents)),
        _dense(subset, terms, np.ones(len(documents), dtype=bool), len(documents)),
        atol=1e-12,
    )
    assert index.document_frequency("bell", half) == subset.document_frequency(
        "bell", np.ones(len(documents), dtype=bool)
    )


def test_compaction_and_arrays_keep_the_scores(documents: list[list[str]]) -> None:
    index = SparseIndex()
    for slot, tokens in enumerate(documents):
        index.add(slot, tokens)
    for slot in range(0, len(documents), 3):
        index.remove(slot)
    every = np.ones(len(documents), dtype=bool)
    before = [_dense(index, content_words(q), every, len(documents)) for q in QUESTIONS]
    copy = SparseIndex.from_arrays(index.to_arrays())
    assert index.dead_postings == 0 and len(copy.vocab) == len(index.vocab)
    for question, expected in zip(QUESTIONS, before, strict=True):
        got = _dense(copy, content_words(question), every, len(documents))
        np.testing.assert_allclose(got, expected, atol=1e-12)
    # Terms only removed documents held are gone from the vocabulary too.
    only_removed = set(documents[0]) - {t for d in documents[1:] if d for t in d}
    assert not only_removed & set(copy.vocab)


def test_an_index_on_mapped_arrays_grows_and_shrinks_like_a_fresh_one(
    documents: list[list[str]], tmp_path: Path
) -> None:
    half = len(documents) // 2
    saved = SparseIndex()
    for slot, tokens in enumerate(documents[:half]):
        saved.add(slot, tokens)
    for name, values in saved.to_arrays().items():
        np.save(tmp_path / f"{name}.npy", values, allow_pickle=False)
    mapped = {p.stem: np.load(p, mmap_mode="r", allow_pickle=False) for p in tmp_path.iterdir()}
    index = SparseIndex.from_arrays(mapped)
    assert np.shares_memory(index.postings("bell")[0], mapped["slots"])  # not copied
    for slot, tokens in enumerate(documents[half:], start=half):
        index.add(slot, tokens)  # old terms gain postings, new terms come
    index.remove(1)
    fresh = SparseIndex()
    for slot, tokens in enumerate(documents):
        fresh.add(slot, tokens)
    fresh.remove(1)
    every = np.ones(len(documents), dtype=bool)
    for question in QUESTIONS:
        terms = content_words(question)
        np.testing.assert_allclose(
            _dense(index, terms, every, len(documents)),
            _dense(fresh, terms, every, len(documents)),
            atol=1e-12,
        )
    again = SparseIndex.from_arrays(index.to_arrays())  # additions and removal folded in
    fresh.compact()
    assert list(again.vocab) == list(fresh.vocab)
    for term in fresh.vocab:
        np.testing.assert_array_equal(again.postings(term)[0], fresh.postings(term)[0])
    broken = {**index.to_arrays()}
    broken["offsets"] = broken["offsets"][:-1]
    with pytest.raises(ValueError, match="do not agree"):
        SparseIndex.from_arrays(broken)


def test_a_live_slot_cannot_be_filled_twice() -> None:
    index = SparseIndex()
    index.add(0, ["a"])
    with pytest.raises(ValueError, match="slot 0"):
        index.add(0, ["b"])


@pytest.mark.parametrize("k", [1, 3, 10, 199, 200, 250])
def test_top_positions_equal_a_full_sort_whatever_the_ties(k: int) -> None:
    rng = random.Random(k)
    for _ in range(50):
        # Few distinct scores and few distinct keys: most of the cut is ties.
        scores = np.array([float(rng.randrange(4)) for _ in range(200)])
        slots = np.array(rng.sample(range(400), 200))
        keys = [f"k{rng.randrange(30)}" for _ in range(400)]
        full = sorted(range(200), key=lambda i: (-scores[i], keys[int(slots[i])]))[:k]
        assert top_positions(scores, slots, k, keys.__getitem__) == full


def test_population_ranks_equal_the_ranks_of_a_full_sort() -> None:
    """A cue's rank on the sparse side is its place among every score, ties broken by
    key, however many share its score and however alike the keys start."""
    rng = random.Random(7)
    stems = ["", "abcdefgh", "abcdefghij", "é", "Z"]  # keys alike in their first 8 bytes
    for _ in range(200):
        size = rng.randint(1, 300)
        keys = SlotKeys(f"{rng.choice(stems)}{rng.randrange(40)}" for _ in range(size + 50))
        slots = np.array(sorted(rng.sample(range(size + 50), size)))
        scores = np.array([float(rng.randrange(3)) for _ in range(size)])
        asked = {int(slots[i]): float(scores[i]) for i in rng.sample(range(size), min(size, 20))}
        order = sorted(range(size), key=lambda i: (-scores[i], keys[int(slots[i])]))
        full = {}
        for place, i in enumerate(order, start=1):
            same = [
                j
                for j in order[: place - 1]
                if (-scores[j], keys[int(slots[j])]) == (-scores[i], keys[int(slots[i])])
            ]  # equal keys share a rank
            full[int(slots[i])] = place - len(same)
        hits = SparseHits(slots, scores)
        assert population_ranks(hits, asked, keys) == {slot: full[slot] for slot in asked}
