"""Key -> slot lookups read from a saved copy, searched where a dictionary would be built.

A reader opening a million-content copy spent more time building its id -> slot and
(scope, text) -> cue dictionaries than loading the cue HNSW graph: every key is a
new Python string to hash. A copy therefore keeps, per lookup, the slots in key order
(:func:`key_order`, computed when the copy is saved); a lookup narrows that order by
the keys' eight-byte numeric prefixes (:mod:`~mragent.core.retrieval.slot_keys`)
with ``numpy.searchsorted`` and settles the few keys that start alike by comparing
them whole. Entries set or deleted after the load live in a small dictionary that
is consulted first, so the lookup behaves as the dictionary it replaces.

Keys are grouped (a scope's code; one group for ids), and ordered by group, then key.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping, Sequence

import numpy as np

from mragent.core.string_arrays import StringColumn

_GONE = -1  # an entry deleted since the load


def _prefix(key: str) -> int:
    """:func:`~mragent.core.retrieval.slot_keys.prefixes` of one key, without numpy."""
    return int.from_bytes(key.encode("utf-8", "surrogatepass")[:8].ljust(8, b"\0"), "big")


def _grouped(groups: np.ndarray | None, slots: np.ndarray) -> np.ndarray:
    """The group of each of ``slots`` (0 for all when there are no groups)."""
    if groups is None:
        return np.zeros(len(slots), np.int64)
    return np.asarray(groups[slots], np.int64)


def key_order(
    keys: StringColumn, starts: np.ndarray, groups: np.ndarray | None, slots: np.ndarray
) -> np.ndarray:
    """``slots`` ordered by (group, key): ``starts`` and ``groups`` are every slot's key
    prefix and group (None: one group). Keys that start alike are put in order by
    comparing them whole."""
    order = slots[np.lexsort((starts[slots], _grouped(groups, slots)))]
    if len(order) < 2:
        return order
    g, p = _grouped(groups, order), starts[order]
    alike = (g[1:] == g[:-1]) & (p[1:] == p[:-1])
    if not alike.any():
        return order
    # Runs of equal (group, prefix): their keys decide.
    edges = np.flatnonzero(np.diff(np.concatenate([[False], alike, [False]]).astype(np.int8)))
    for begin, end in zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True):
        run = order[begin : end + 1].tolist()
        order[begin : end + 1] = sorted(run, key=keys.__getitem__)
    return order


class SortedLookup(MutableMapping[tuple[int, str], int]):
    """(group, key) -> slot over slots kept in (group, key) order.

    Args:
        keys: Every slot's key (``keys[slot]``).
        starts: Every slot's key prefix (:func:`~mragent.core.retrieval.slot_keys.prefixes`).
        groups: Every slot's group (None: one group, 0).
        order: The slots looked up, in (group, key) order (:func:`key_order`).
    """

    def __init__(
        self,
        keys: StringColumn,
        starts: np.ndarray,
        groups: np.ndarray | None,
        order: np.ndarray,
    ) -> None:
        self._keys = keys
        self._order = np.asarray(order, np.int64)
        self._starts = np.asarray(starts[self._order], np.uint64)
        in_order = _grouped(groups, self._order)
        edges = np.flatnonzero(np.diff(in_order)) + 1
        firsts = np.concatenate([[0], edges]).tolist() if len(in_order) else []
        lasts = [*edges.tolist(), len(in_order)] if len(in_order) else []
        # group -> its range in the order (groups are few: scopes).
        self._ranges = {
            int(in_order[first]): (first, last) for first, last in zip(firsts, lasts, strict=True)
        }
        self._changed: dict[tuple[int, str], int] = {}
        self._size = len(self._order)

    def _base(self, group: int, key: str) -> int | None:
        lo, hi = self._ranges.get(group, (0, 0))
        if lo == hi:
            return None
        start = np.uint64(_prefix(key))
        block = self._starts[lo:hi]
        lo += int(block.searchsorted(start, "left"))
        if lo == hi or self._starts[lo] != start:
            return None
        slot = int(self._order[lo])
        if self._keys[slot] == key:  # the usual case: a prefix of its own
            return slot
        hi = lo + int(self._starts[lo:hi].searchsorted(start, "right"))
        lo += 1
        while lo < hi:  # keys that start alike: compared whole
            mid = (lo + hi) // 2
            slot = int(self._order[mid])
            found = self._keys[slot]
            if found == key:
                return slot
            if found < key:
                lo = mid + 1
            else:
                hi = mid
        return None

    def __getitem__(self, item: tuple[int, str]) -> int:
        slot = self._changed.get(item)
        if slot is None:
            slot = self._base(*item)
        if slot is None or slot == _GONE:
            raise KeyError(item)
        return slot

    def __setitem__(self, item: tuple[int, str], slot: int) -> None:
        before = self._changed.get(item)
        if before == _GONE or (before is None and self._base(*item) is None):
            self._size += 1  # a new entry, not a new slot for one there
        self._changed[item] = slot

    def __delitem__(self, item: tuple[int, str]) -> None:
        self[item]  # raises KeyError when absent
        self._changed[item] = _GONE
        self._size -= 1

    def __iter__(self) -> Iterator[tuple[int, str]]:
        seen = set()
        for item, slot in self._changed.items():
            seen.add(item)
            if slot != _GONE:
                yield item
        for group, (first, last) in self._ranges.items():
            for slot in self._order[first:last].tolist():
                item = (group, self._keys[slot])
                if item not in seen:
                    yield item

    def __len__(self) -> int:
        return self._size


class IdSlots(MutableMapping[str, int]):
    """id -> slot, as a :class:`SortedLookup` of one group."""

    def __init__(self, lookup: SortedLookup) -> None:
        self._lookup = lookup

    def __getitem__(self, key: str) -> int:
        return self._lookup[(0, key)]

    def __setitem__(self, key: str, slot: int) -> None:
        self._lookup[(0, key)] = slot

    def __delitem__(self, key: str) -> None:
        del self._lookup[(0, key)]

    def __iter__(self) -> Iterator[str]:
        return (key for _, key in self._lookup)

    def __len__(self) -> int:
        return len(self._lookup)


class ScopedSlots(MutableMapping[tuple[str, str], int]):
    """(scope, text) -> slot, as a :class:`SortedLookup` grouped by the code of the
    scope in ``names`` (the copy's scope names; a scope it did not know is kept
    among the changes).
    """

    def __init__(self, lookup: SortedLookup, names: Sequence[str]) -> None:
        self._lookup, self._names = lookup, list(names)
        self._codes = {name: code for code, name in enumerate(self._names)}
        self._unknown: dict[tuple[str, str], int] = {}

    def _item(self, key: tuple[str, str]) -> tuple[int, str] | None:
        code = self._codes.get(key[0])
        return None if code is None else (code, key[1])

    def __getitem__(self, key: tuple[str, str]) -> int:
        item = self._item(key)
        return self._unknown[key] if item is None else self._lookup[item]

    def __setitem__(self, key: tuple[str, str], slot: int) -> None:
        item = self._item(key)
        if item is None:
            self._unknown[key] = slot
        else:
            self._lookup[item] = slot

    def __delitem__(self, key: tuple[str, str]) -> None:
        item = self._item(key)
        if item is None:
            del self._unknown[key]
        else:
            del self._lookup[item]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        yield from self._unknown
        for code, text in self._lookup:
            yield (self._names[code], text)

    def __len__(self) -> int:
        return len(self._unknown) + len(self._lookup)
