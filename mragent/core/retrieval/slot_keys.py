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

import bisect
from collections.abc import Iterable, Iterator, Sequence

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

    def count_below(self, slots: np.ndarray, probes: Sequence[str]) -> list[int]:
        """For each of ``probes``, how many of ``slots`` have a key that sorts before it.

        One pass over the slots' prefixes serves every probe: each prefix is binned
        among the probes' prefixes, and whole keys are compared only where a prefix
        equals a probe's.
        """
        starts = self._starts[slots]
        probe_starts = prefixes(probes)
        # A handful of probes: sorted in Python, since numpy's unique imports numpy.ma
        # on its first call (8 ms of a cold recall).
        bounds = np.array(sorted(set(probe_starts.tolist())), dtype=np.uint64)
        bins = np.searchsorted(bounds, starts, side="right")  # how many bounds are <= each
        # below[j]: how many prefixes sort before bounds[j]
        below = np.cumsum(np.bincount(bins, minlength=len(bounds) + 1))
        at = np.maximum(bins - 1, 0)
        alike = np.flatnonzero((bins > 0) & (starts == bounds[at]))
        sharing: dict[int, list[str]] = {}
        for j, slot in zip(at[alike].tolist(), slots[alike].tolist(), strict=True):
            sharing.setdefault(j, []).append(self._keys[slot])
        for names in sharing.values():
            names.sort()  # each key decoded once, then bisected by every probe it shares with
        counts = []
        for probe, j in zip(probes, np.searchsorted(bounds, probe_starts).tolist(), strict=True):
            counts.append(int(below[j]) + bisect.bisect_left(sharing.get(j, []), probe))
        return counts

    def _order(self, slots: np.ndarray) -> np.ndarray:
        """Positions of ``slots`` in key order (a stable sort)."""
        keys = [self._keys[slot] for slot in slots.tolist()]
        return np.asarray(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.intp)
