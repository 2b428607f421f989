"""Ties broken by key, vectorised: the same order as comparing the keys one by one."""

from __future__ import annotations

import random

import numpy as np

from mragent.core.retrieval.slot_keys import SlotKeys

# Keys that agree on their first eight bytes (and differ after), non-ASCII ones, an
# empty one and one padded with a NUL: the cases a numeric prefix alone would get wrong.
STEMS = ["a", "ab", "abcdefgh", "abcdefghi", "abcdefghij", "é", "éa", "Z", "", "abcdefgh\x00"]


def _keys(rng: random.Random, n: int) -> list[str]:
    return [
        rng.choice(STEMS) + rng.choice(["", "x", "xyz"]) + str(rng.randint(0, 3)) for _ in range(n)
    ]


def test_the_smallest_keys_and_the_count_below_match_plain_comparison() -> None:
    rng = random.Random(0)
    for _ in range(500):
        keys = _keys(rng, rng.randint(1, 200))
        index = SlotKeys()
        for key in keys:  # grown one key at a time, as an index is
            index.append(key)
        slots = np.array(sorted(rng.sample(range(len(keys)), rng.randint(1, len(keys)))))
        n = rng.randint(0, len(slots) + 2)
        expected = sorted(range(len(slots)), key=lambda i: keys[slots[i]])[:n]
        assert index.smallest(slots, n).tolist() == expected
        probes = [rng.choice(keys) + rng.choice(["", "a"]) for _ in range(rng.randint(1, 5))]
        expected_below = [sum(keys[s] < probe for s in slots.tolist()) for probe in probes]
        assert index.count_below(slots, probes) == expected_below
