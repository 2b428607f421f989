"""Top-k BM25 by MaxScore: exactly the exhaustive scorer's k best, scores and tie order."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from mragent.core.retrieval import sparse_index
from mragent.core.retrieval.cue_search import top_positions
from mragent.core.retrieval.slot_keys import SlotKeys
from mragent.core.retrieval.sparse_index import SparseIndex

KS = (1, 2, 3, 5, 10, 40, 500)


def _zipf_words(rng: random.Random, vocabulary: int, count: int) -> list[str]:
    weights = [1 / (rank + 1) for rank in range(vocabulary)]
    return [f"w{i}" for i in rng.choices(range(vocabulary), weights, k=count)]


def _history(seed: int) -> tuple[SparseIndex, int, random.Random]:
    """An index built by a random feed: shuffled slots, removals, re-adds, and now and
    then a compaction or a save and load; its slot count; the generator."""
    rng = random.Random(seed)
    vocabulary = rng.choice((6, 30, 200))
    index = SparseIndex()
    slot = 0
    live: list[int] = []
    for _ in range(rng.randrange(20, 400)):
        if live and rng.random() < 0.2:
            index.remove(live.pop(rng.randrange(len(live))))
            continue
        # Short documents over a small vocabulary: many equal scores.
        index.add(slot, _zipf_words(rng, vocabulary, rng.randrange(1, 13)))
        live.append(slot)
        slot += rng.choice((1, 1, 1, 3))  # some slots stay empty
    if rng.random() < 0.3:
        index.compact()
    if rng.random() < 0.3:
        index = SparseIndex.from_arrays(index.to_arrays())
    return index, slot, rng


def _cases(seeds: range) -> Iterator[tuple[SparseIndex, list[str], np.ndarray, SlotKeys]]:
    for seed in seeds:
        index, size, rng = _history(seed)
        vocabulary = max(int(t[1:]) for t in index.vocab) + 1 if index.vocab else 1
        # Few distinct keys: ties on the score and on the key both reach the cut.
        keys = SlotKeys(f"k{rng.randrange(rng.choice((3, 50, 10_000)))}" for _ in range(size))
        for _ in range(6):
            mask = np.ones(size + rng.choice((-5, 0, 7)), dtype=bool)
            if rng.random() < 0.6:
                mask &= np.array([rng.random() < 0.7 for _ in range(len(mask))], dtype=bool)
            terms = _zipf_words(rng, vocabulary + 2, rng.randrange(1, 13))  # some unknown
            yield index, terms, mask, keys


def _top(
    scores: np.ndarray, slots: np.ndarray, k: int, tie: SlotKeys | Callable[[int], str]
) -> list[tuple[int, float]]:
    """The k best as (slot, score), best first, as the callers order them."""
    return [(int(slots[i]), float(scores[i])) for i in top_positions(scores, slots, k, tie)]


def _mismatches(seeds: range) -> tuple[int, int, int, int, int]:
    """(cases, cases whose k best differ, hits best kept, hits scores gave, cases with
    a tie across the cut)."""
    cases = wrong = pruned = exhaustive = tied = 0
    for index, terms, mask, keys in _cases(seeds):
        full = index.scores(terms, mask)
        ordered = np.sort(full.scores)[::-1]
        for k in KS:
            tied += len(ordered) > k and ordered[k - 1] == ordered[k]
            best = index.best(terms, mask, k)
            cases += 1
            pruned += len(best)
            exhaustive += len(full)
            # Ties broken by the keys' numeric prefixes (SlotKeys) and by a plain function.
            same = all(
                _top(best.scores, best.slots, k, tie) == _top(full.scores, full.slots, k, tie)
                for tie in (keys, keys.__getitem__)
            )
            # What best returns is part of the exhaustive scoring, to the bit.
            at = np.searchsorted(full.slots, best.slots)
            inside = bool(np.all(full.slots[np.minimum(at, len(full) - 1)] == best.slots))
            same = same and inside and bool(np.all(full.scores[at] == best.scores))
            wrong += not same
    return cases, wrong, pruned, exhaustive, tied


def test_best_gives_the_exhaustive_top_k_exactly() -> None:
    cases, wrong, pruned, exhaustive, tied = _mismatches(range(120))
    assert cases > 4000 and wrong == 0
    # The check is not vacuous: the bounds do leave documents unscored, and the tie
    # order decides who makes the k in many cases.
    assert pruned < 0.8 * exhaustive and tied > 100


def test_an_unsafe_bound_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # Bounds taken at a third of their value prune documents that belong to the k best:
    # the comparison above must see it.
    monkeypatch.setattr(sparse_index, "_SAFETY", -2 / 3)
    _, wrong, _, _, _ = _mismatches(range(40))
    assert wrong > 0


def test_best_on_common_words_scores_few_documents() -> None:
    rng = random.Random(7)
    index = SparseIndex()
    for slot in range(3000):
        words = ["common"] * rng.randrange(1, 3) + _zipf_words(rng, 400, rng.randrange(3, 12))
        index.add(slot, words)
    for slot in range(3000, 3005):
        index.add(slot, ["rare", "common"])
    mask = np.ones(3005, dtype=bool)
    keys = SlotKeys(str(slot) for slot in range(3005))
    best = index.best(["common", "rare"], mask, 5)
    full = index.scores(["common", "rare"], mask)
    top = _top(best.scores, best.slots, 5, keys)
    assert top == _top(full.scores, full.slots, 5, keys)
    assert [slot for slot, _ in top] == list(range(3000, 3005))
    assert len(full) == 3005 and len(best) == 5  # "common" alone cannot reach the floor


def test_best_of_nothing() -> None:
    index = SparseIndex()
    index.add(0, ["a", "b"])
    assert len(index.best(["a"], np.ones(1, dtype=bool), 0)) == 0
    assert len(index.best(["z"], np.ones(1, dtype=bool), 3)) == 0
    assert len(index.best(["a"], np.zeros(1, dtype=bool), 3)) == 0
    assert index.best(["a", "b"], np.ones(1, dtype=bool), 3).slots.tolist() == [0]


def test_scores_are_summed_per_slot_in_query_order() -> None:
    # The sum each document gets is the one np.unique and np.bincount give, to the bit,
    # whatever order the slots were handed out in.
    rng = random.Random(11)
    index = SparseIndex()
    slots = list(range(500))
    rng.shuffle(slots)
    for slot in slots:
        index.add(slot, _zipf_words(rng, 60, rng.randrange(1, 15)))
    mask = np.ones(500, dtype=bool)
    for _ in range(50):
        terms = list(dict.fromkeys(_zipf_words(rng, 60, rng.randrange(1, 12))))
        found, values = [], []
        for term in terms:
            posted, tfs = index.postings(term)
            tfs = tfs.astype(np.float64)
            df, n, avg = len(posted), 500, float(index.lengths[:500].mean())
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            norm = index.k1 * (1 - index.b + index.b * index.lengths[posted] / avg)
            found.append(posted)
            values.append(idf * tfs / (tfs + norm))
        unique, inverse = np.unique(np.concatenate(found), return_inverse=True)
        hits = index.scores(terms, mask)
        assert hits.slots.tolist() == unique.tolist()
        assert hits.scores.tolist() == np.bincount(inverse, np.concatenate(values)).tolist()


def test_saved_bounds_are_the_ones_a_load_would_compute() -> None:
    for seed in range(200):
        index, _, _ = _history(seed)
        arrays = index.to_arrays()
        kept = SparseIndex.from_arrays(arrays)
        recomputed = SparseIndex.from_arrays(
            {k: v for k, v in arrays.items() if k not in ("tf_max", "length_min")}
        )
        assert kept._tf_max == recomputed._tf_max, seed
        assert kept._length_min == recomputed._length_min, seed


def test_kept_terms_score_as_a_fresh_index_across_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A common term's scoring is kept for the population it was made under: later
    questions, after adds and removes and with the keep budget overrun, score to the bit
    as an index that never kept one."""
    monkeypatch.setattr(sparse_index, "_TERM_KEPT_MIN", 1)
    monkeypatch.setattr(sparse_index, "_TERMS_KEPT", 60)
    kept_any = 0
    for seed in range(40):
        index, size, rng = _history(seed)
        vocabulary = max(int(t[1:]) for t in index.vocab) + 1 if index.vocab else 1
        for step in range(8):
            if step % 3 == 2:  # a change: the population and its kept terms go
                index.add(size, _zipf_words(rng, vocabulary, 4))
                index.remove(rng.randrange(size))
                size += 1
            mask = np.ones(size, dtype=bool)
            for _ in range(3):
                fresh = SparseIndex.from_arrays(index.to_arrays())
                terms = _zipf_words(rng, vocabulary, rng.randrange(1, 8))
                got, want = index.scores(terms, mask), fresh.scores(terms, mask)
                assert got.slots.tolist() == want.slots.tolist()
                assert got.scores.tolist() == want.scores.tolist()
                got, want = index.best(terms, mask, 3), fresh.best(terms, mask, 3)
                assert got.scores.tolist() == want.scores.tolist()
            kept_any += len(index._population[7]) if index._population else 0
            # Another view's mask (a narrower read view) never scores with these terms.
            narrow = mask & np.array([rng.random() < 0.5 for _ in range(size)], dtype=bool)
            fresh = SparseIndex.from_arrays(index.to_arrays())
            got, want = index.scores(terms, narrow), fresh.scores(terms, narrow)
            assert got.slots.tolist() == want.slots.tolist()
            assert got.scores.tolist() == want.scores.tolist()
    assert kept_any > 0
