"""The compact co-occurrence counter counts exactly what a ``Counter`` of pairs counts, and
the name marks an ingest keeps behave as the sets of names they replace."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from mragent.core.extract import Extraction
from mragent.memory.ingest_source import CorpusStats, NameMarks
from mragent.memory.pair_counts import PairCounts


@pytest.mark.parametrize("merge_every", [1, 7, 1 << 20])
def test_counts_equal_a_counter_of_the_same_pairs(merge_every: int) -> None:
    rng = random.Random(merge_every)
    counts, expected = PairCounts(merge_every), Counter[tuple[int, int]]()
    for _ in range(5_000):
        pair = (rng.randrange(60), rng.choice([0, 1, rng.randrange(2**32)]))
        counts.add(*pair)
        expected[pair] += 1
        if rng.random() < 0.01:  # reads between adds see every pair added so far
            probe = rng.choice(list(expected))
            assert counts.count(*probe) == expected[probe]
    assert len(counts) == len(expected)
    assert all(counts.count(a, b) == n for (a, b), n in expected.items())
    assert counts.count(61, 0) == 0 and counts.count(0, 2) == expected[(0, 2)]


def test_a_pair_outside_the_key_range_is_refused() -> None:
    with pytest.raises(ValueError, match="outside"):
        PairCounts().add(2**32, 0)
    with pytest.raises(ValueError, match="outside"):
        PairCounts().add(0, -1)


def test_corpus_stats_count_tags_and_primary_pairs() -> None:
    stats = CorpusStats()
    for primary, *others in (["A", "B", "C"], ["A", "B"], ["B", "A"], ["C"]):
        stats.add(Extraction(primary, (primary, *others), ("word",)))
    assert stats.n == 4 and stats.kw_df["word"] == 4
    assert [stats.tag_df(t) for t in "ABCD"] == [3, 3, 2, 0]
    assert stats.cooc("A", "B") == 2 and stats.cooc("B", "A") == 1
    assert stats.cooc("A", "C") == 1 and stats.cooc("C", "A") == 0
    assert stats.cooc("A", "D") == 0


def test_name_marks_hold_counted_tags_by_number_and_other_names_by_value() -> None:
    stats = CorpusStats()
    stats.add(Extraction("Paris", ("Paris", "France"), ("capital",)))
    marks = NameMarks(stats)
    assert len(marks) == 0 and "Paris" not in marks
    marks.update(["France", "capital", "France", "Seine"])
    assert "France" in marks and "capital" in marks and "Seine" in marks
    assert "Paris" not in marks and 3 not in marks
    assert len(marks) == 3
    assert marks.sorted() == ["France", "Seine", "capital"]
