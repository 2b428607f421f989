"""kth_largest gives what numpy's partition gives, ties and all."""

from __future__ import annotations

import numpy as np

from mragent.core.retrieval.selection import kth_largest


def test_the_kth_largest_is_the_partitions_whatever_the_ties() -> None:
    rng = np.random.default_rng(0)
    for trial in range(3000):
        n = int(rng.integers(1, 400))
        distinct = int(rng.integers(1, 12))
        if trial % 3 == 0:  # continuous: hardly a tie
            values = rng.random(n)
        elif trial % 3 == 1:  # a few values, any of them the common one
            values = rng.choice(rng.random(distinct), n)
        else:  # one lowest value held by most, as a common word's scores are
            values = np.where(rng.random(n) < 0.9, 0.25, rng.random(n) + 0.25)
        k = int(rng.integers(1, n + 1))
        assert kth_largest(values, k) == np.partition(values, n - k)[n - k]


def test_the_kth_largest_above_at_and_below_a_mass_of_ties() -> None:
    """The shape that slows the partition: most values equal and lowest."""
    values = np.concatenate([np.full(1 << 16, 1.0), np.arange(2.0, 40.0)])
    assert kth_largest(values, 10) == 30.0
    assert kth_largest(values, 38) == 2.0
    assert kth_largest(values, 39) == 1.0
    assert kth_largest(values, len(values)) == 1.0


def test_the_kth_largest_of_many_values_is_the_partitions() -> None:
    """Large arrays and small k take the blocks' maxima first; the answer is the same,
    the best values clustered in one block or spread, ties and all."""
    rng = np.random.default_rng(1)
    for trial in range(300):
        n = int(rng.integers(4096, 60_000))
        values = np.where(rng.random(n) < 0.6, 0.25, rng.random(n) + 0.25)
        if trial % 3 == 0:  # every high value in one block
            values.sort()
        elif trial % 3 == 1:  # a few distinct values only
            values = rng.choice(rng.random(3), n)
        k = int(rng.integers(1, 80))
        assert kth_largest(values, k) == np.partition(values, n - k)[n - k]
