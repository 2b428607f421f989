"""Lookups read from a saved copy answer as the dictionaries they replace, before and
after entries are set and deleted, and packed string lists read as lists."""

from __future__ import annotations

import random

import numpy as np

from mragent.core.retrieval.slot_keys import prefixes
from mragent.core.retrieval.sorted_lookup import IdSlots, ScopedSlots, SortedLookup, key_order
from mragent.core.string_arrays import PackedStrings, pack_strings

LETTERS = "abcab éß中😀\u0301"


def _word(rng: random.Random) -> str:
    # Short words from few letters, and long ones sharing their first eight bytes.
    if rng.random() < 0.3:
        return "commonprefix-" + "".join(rng.choice(LETTERS) for _ in range(rng.randint(0, 3)))
    return "".join(rng.choice(LETTERS) for _ in range(rng.randint(0, 6)))


def _packed(values: list[str]) -> PackedStrings:
    column = PackedStrings.of(*pack_strings(values))
    assert isinstance(column, PackedStrings)
    return column


def test_packed_strings_read_as_the_list() -> None:
    rng = random.Random(3)
    for _ in range(200):
        values = [_word(rng) for _ in range(rng.randint(1, 30))]
        column = _packed(values)
        added = [_word(rng) for _ in range(rng.randint(0, 3))]
        for value in added:
            column.append(value)
        whole = values + added
        assert len(column) == len(whole)
        assert [column[i] for i in range(len(whole))] == whole
        assert column[-1] == whole[-1]
        assert column.tolist() == whole and list(column) == whole


def test_a_string_holding_a_nul_is_read_from_a_plain_list() -> None:
    assert PackedStrings.of(*pack_strings(["a\x00b", "c"])) == ["a\x00b", "c"]


def test_scoped_lookup_answers_as_a_dictionary() -> None:
    rng = random.Random(5)
    for trial in range(150):
        scopes = ["shared", "team", "ana"][: rng.randint(1, 3)]
        texts = [_word(rng) for _ in range(rng.randint(1, 60))]
        codes = np.array([rng.randrange(len(scopes)) for _ in texts], np.int16)
        model: dict[tuple[str, str], int] = {}
        for slot, text in enumerate(texts):
            if rng.random() < 0.8:
                model[(scopes[codes[slot]], text)] = slot  # the last slot of a key stands
        column = _packed(texts)
        order = key_order(column, prefixes(texts), codes, np.fromiter(model.values(), np.int64))
        lookup = ScopedSlots(SortedLookup(column, prefixes(texts), codes, order), scopes)
        for _ in range(40):
            key = (rng.choice([*scopes, "elsewhere"]), rng.choice([*texts, _word(rng)]))
            action = rng.random()
            if action < 0.2:
                model[key] = rng.randrange(100)
                lookup[key] = model[key]
            elif action < 0.35 and key in model:
                del model[key]
                del lookup[key]
            assert lookup.get(key) == model.get(key), (trial, key)
            assert (key in lookup) == (key in model)
        assert len(lookup) == len(model)
        assert sorted(lookup) == sorted(model)
        assert all(lookup[key] == slot for key, slot in model.items())


def test_id_lookup_answers_as_a_dictionary() -> None:
    rng = random.Random(9)
    ids = [f"{rng.getrandbits(64):016x}-{i}" for i in range(500)] + ["same-start-1", "same-start-2"]
    column = _packed(ids)
    starts = prefixes(ids)
    order = key_order(column, starts, None, np.arange(len(ids)))
    lookup = IdSlots(SortedLookup(column, starts, None, order))
    assert all(lookup[cid] == slot for slot, cid in enumerate(ids))
    assert lookup.get("unknown") is None and len(lookup) == len(ids)
    lookup["new"] = len(ids)
    assert lookup["new"] == len(ids) and len(lookup) == len(ids) + 1
