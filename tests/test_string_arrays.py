"""String lists packed as UTF-8 text and character ends (index copies' string columns)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from mragent.core.retrieval.slot_keys import prefixes
from mragent.core.string_arrays import (
    PackedStrings,
    pack_strings,
    packed,
    unpack_strings,
    unpacked,
)

CASES = [
    [],
    [""],
    ["", "", "a"],
    ["Nintendo", "José", "東京", "🦉 owl", "x" * 1000],
    ["\udcff lone surrogate", "after"],
]


@pytest.mark.parametrize("values", CASES)
def test_strings_come_back_as_they_were_packed(values: list[str]) -> None:
    utf8, ends = pack_strings(values)
    assert utf8.dtype == np.uint8 and ends.dtype == np.int64
    assert unpack_strings(utf8, ends) == values


def test_a_long_string_costs_its_own_length_not_every_strings() -> None:
    values = ["short"] * 10_000 + ["y" * 1_000]
    utf8, ends = pack_strings(values)
    fixed = np.array(values, dtype=str)
    assert utf8.nbytes + ends.nbytes < 200_000 < fixed.nbytes  # fixed width: 40 MB


def test_strings_holding_the_separator_are_cut_at_their_ends() -> None:
    values = ["a\0b", "\0", "", "c"]
    utf8, ends = pack_strings(values)
    assert utf8.tobytes().count(b"\0") > len(values) - 1  # the split alone would be wrong
    assert unpack_strings(utf8, ends) == values


@pytest.mark.parametrize(
    "ends",
    [
        [3, 2, 6],  # decreasing
        [2, 2, 6],  # no room for the separator
        [2, 5],  # short of the text
        [2, 9],  # past it
    ],
)
def test_ends_that_do_not_fit_the_text_are_refused(ends: list[int]) -> None:
    utf8, _ = pack_strings(["ab", "cde"])
    with pytest.raises(ValueError, match="do not fit"):
        unpack_strings(utf8, np.array(ends, dtype=np.int64))


def test_ends_that_do_not_fall_on_separators_are_refused() -> None:
    # Ends of strings packed without separators: they fit the text's length, but the
    # characters they point at are not NULs.
    utf8 = np.frombuffer(b"abcde", dtype=np.uint8)
    with pytest.raises(ValueError, match="do not fit"):
        unpack_strings(utf8, np.array([2, 5], dtype=np.int64))


def test_text_with_no_ends_is_refused() -> None:
    utf8, _ = pack_strings(["abc"])
    with pytest.raises(ValueError, match="do not fit"):
        unpack_strings(utf8, np.array([], dtype=np.int64))


def test_named_arrays_round_trip() -> None:
    arrays = packed("texts", ["one", "two"])
    assert set(arrays) == {"texts_utf8", "texts_ends"}
    assert unpacked("texts", arrays) == ["one", "two"]


def test_packed_prefixes_are_the_keys_prefixes() -> None:
    rng = random.Random(7)
    letters = "abcXYZ éß中文😀\u0301 -~"
    for _ in range(500):
        keys = [
            "".join(rng.choice(letters) for _ in range(rng.randint(0, 14)))
            for _ in range(rng.randint(1, 40))
        ]
        column = PackedStrings.of(*pack_strings(keys))
        assert isinstance(column, PackedStrings)
        added = ["".join(rng.choice(letters) for _ in range(rng.randint(0, 9))) for _ in range(2)]
        for key in added:
            column.append(key)
        got = column.prefixes()
        assert got.dtype == np.uint64
        assert got.tolist() == prefixes(keys + added).tolist(), keys
