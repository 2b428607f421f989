"""The key of every slot of an index, kept with a numeric prefix for vectorised ties.

Scores tie often: a question word shared by thousands of cue texts gives them all
the same BM25 score, and the order among them is the order of their keys (cue text,
content key), so every engine and every run agree. Taking the first few of a
hundred thousand tied keys, or one key's rank among them, one Python comparison at a
time costs more than the scoring itself at a million contents. Each key therefore
keeps its first eight UTF-8 bytes as a big-endian integer: integers compare like the
keys' starts (UTF-8 byte order is code point order), so numpy settles every tie but
those between keys that start alike, which are then compared whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from mragent.core.string_arrays import PackedStrings, StringColumn

_GROW = 1.5


def prefixes(keys: Iterable[str]) -> np.ndarray:
    """The first eight UTF-8 bytes of each key as an unsigned integer (zero-padded)."""
    starts = np.array([key.encode("utf-8", "surrogatepass")[:8] for key in keys], dtype="S8")
    return starts.view(">u8").astype(np.uint64)


class SlotKeys:
    """Keys by slot (a list that only grows), each with its numeric prefix.

    Args:
        keys: The keys of slots ``0..len(keys)-1``.
        starts: Their :func:`prefixes`, when already known (read with a saved copy).
    """

    def __init__(self, keys: Iterable[str] = (), starts: np.ndarray | None = None) -> None:
        # A packed list stays packed: its keys are decoded when compared.
        self._keys: StringColumn = keys if isinstance(keys, PackedStrings) else list(keys)
        self._starts = prefixes(self._keys) if starts is None else starts
        if len(self._starts) != len(self._keys):
            raise ValueError("a prefix for every key, and no more")

    def __len__(self) -> int:
        return len(self._keys)

    def __getitem__(self, slot: int) -> str:
        return self._keys[slot]

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def tolist(self) -> list[str]:
        """The keys as a plain list (for saving)."""
        return self._keys.tolist() if isinstance(self._keys, PackedStrings) else list(self._keys)

    def append(self, key: str) -> None:
        """The key of the next slot."""
        slot = len(self._keys)
        if slot >= len(self._starts):
            grow = max(16, int(len(self._starts) * (_GROW - 1)))
            self._starts = np.concatenate([self._starts, np.zeros(grow, np.uint64)])
        self._keys.append(key)
        self._starts[slot] = prefixes([key])[0]

    def smallest(self, slots: np.ndarray, n: int) -> np.ndarray:
        """Positions in ``slots`` of the ``n`` smallest keys, smallest first (equal keys
        in the order of their positions)."""
        if n <= 0 or not len(slots):
            return np.zeros(0, np.intp)
        starts = self._starts[slots]
        chosen = np.arange(len(slots))
        if n < len(slots):
            cut = np.partition(starts, n - 1)[n - 1]
            sure = np.flatnonzero(starts < cut)
            edge = np.flatnonzero(starts == cut)
            if len(sure) + len(edge) > n:
                # Keys starting like the cut's: their whole keys decide which make the n.
                edge = edge[self._order(slots[edge])[: n - len(sure)]]
            chosen = np.concatenate([sure, edge])
        return chosen[self._order(slots[chosen])]

    def among(self, slots: np.ndarray) -> KeysAmong:
        """The keys of ``slots`` alone, to count those below a key again and again."""
        return KeysAmong(self._keys, slots, self._starts[slots])

    def _order(self, slots: np.ndarray) -> np.ndarray:
        """Positions of ``slots`` in key order (a stable sort)."""
        keys = [self._keys[slot] for slot in slots.tolist()]
        return np.asarray(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.intp)


class KeysAmong:
    """The keys of a fixed set of slots (one score's ties), their prefixes gathered
    once: counting those below each of a question's hits then reads no other slot."""

    def __init__(self, keys: StringColumn, slots: np.ndarray, starts: np.ndarray) -> None:
        self._keys, self._slots, self._starts = keys, slots, starts

    def count_below(self, key: str) -> int:
        """How many of the slots have a key that sorts before ``key``."""
        start = prefixes([key])[0]
        alike = self._slots[self._starts == start].tolist()
        below = int(np.count_nonzero(self._starts < start))
        return below + sum(self._keys[s] < key for s in alike)
