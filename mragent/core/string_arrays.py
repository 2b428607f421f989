"""Lists of strings as two flat numpy arrays, for files that are memory-mapped.

A fixed-width numpy string array stores every string at the longest one's width,
four bytes a character: one 1,000-character cue made the cue texts of a
2,000-passage memory 87 MB, all of it read and hashed at every cold start. Here a
list is its strings' UTF-8 text joined by NUL characters (``uint8``), and where
each string ends in that text, counted in characters (``int64``). The text is
decoded once and split at its NULs, a single pass in C; only when a string holds
a NUL itself (the split then gives more pieces than there are strings) is it cut
at the recorded ends instead. ``surrogatepass`` keeps any Python string, a lone
surrogate too.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator

import numpy as np

SEPARATOR = "\x00"
# The first n bytes of a big-endian eight-byte integer, n = 0..8.
_HEAD_MASKS = np.array([(1 << 64) - (1 << (64 - 8 * n)) for n in range(9)], dtype=np.uint64)


def pack_strings(values: StringColumn) -> tuple[np.ndarray, np.ndarray]:
    """``values`` as (UTF-8 text joined by NULs, character end of each string in it)."""
    if isinstance(values, PackedStrings):
        values = values.tolist()
    text = SEPARATOR.join(values)
    ends = np.cumsum([len(v) + 1 for v in values], dtype=np.int64) - 1
    return np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8), ends


def unpack_strings(utf8: np.ndarray, ends: np.ndarray) -> list[str]:
    """The strings :func:`pack_strings` packed.

    Raises:
        ValueError: when the ends do not fit the text (a damaged file), or the
            text is not UTF-8.
    """
    text = np.asarray(utf8, dtype=np.uint8).tobytes().decode("utf-8", "surrogatepass")
    offsets = np.asarray(ends, dtype=np.int64)
    if offsets.ndim != 1:
        raise ValueError("string ends do not fit their text")
    if not len(offsets):
        if text:
            raise ValueError("string ends do not fit their text")
        return []
    if offsets[-1] != len(text) or bool((np.diff(offsets, prepend=-1) < 1).any()):
        raise ValueError("string ends do not fit their text")
    pieces = text.split(SEPARATOR)
    if len(pieces) == len(offsets):  # no string holds a NUL of its own
        return pieces
    stops = offsets.tolist()
    if any(text[stop] != SEPARATOR for stop in stops[:-1]):
        raise ValueError("string ends do not fit their text")
    starts = [0, *(stop + 1 for stop in stops[:-1])]
    return [text[a:b] for a, b in zip(starts, stops, strict=True)]


def packed(name: str, values: StringColumn) -> dict[str, np.ndarray]:
    """``values`` packed as the arrays ``<name>_utf8`` and ``<name>_ends``."""
    utf8, ends = pack_strings(values)
    return {f"{name}_utf8": utf8, f"{name}_ends": ends}


def unpacked(name: str, arrays: dict[str, np.ndarray]) -> list[str]:
    """The strings :func:`packed` stored as ``name`` in ``arrays``.

    Raises:
        KeyError: when either array is missing.
        ValueError: as :func:`unpack_strings`.
    """
    return unpack_strings(arrays[f"{name}_utf8"], arrays[f"{name}_ends"])


class PackedStrings:
    """A list of strings kept as their packed UTF-8 text, each decoded when asked for.

    A copy's million ids, keys and titles as Python strings cost more to make at
    load than the rest of the copy, and most of them are never looked at. Strings
    appended after the load are kept as they are. Reads like the list it replaces
    (index, length, iteration, ``append``), not sliced or assigned to.
    """

    def __init__(self, text: bytes, starts: np.ndarray, stops: np.ndarray) -> None:
        self._text = text  # followed by eight NULs (see prefixes)
        # Python arrays: reading one offset gives an int, not a numpy scalar.
        self._start_at = array("q", np.asarray(starts, np.int64).tobytes())
        self._stop_at = array("q", np.asarray(stops, np.int64).tobytes())
        self._count = len(starts)
        self._added: list[str] = []

    @classmethod
    def of(cls, utf8: np.ndarray, ends: np.ndarray) -> PackedStrings | list[str]:
        """The strings :func:`pack_strings` packed (a plain list where a string holds a
        NUL of its own: its separators do not say where the strings start).

        Raises:
            ValueError: as :func:`unpack_strings`.
        """
        count, raw = len(ends), np.asarray(utf8, dtype=np.uint8)
        separators = np.flatnonzero(raw == 0)
        if not count or len(separators) != count - 1:
            return unpack_strings(utf8, ends)
        text = raw.tobytes() + bytes(8)
        str(memoryview(text)[:-8], "utf-8", "surrogatepass")  # a bad text fails now
        starts = np.concatenate([[0], separators + 1])
        return cls(text, starts, np.concatenate([separators, [len(raw)]]))

    def prefixes(self) -> np.ndarray:
        """Each string's first eight UTF-8 bytes as one big-endian unsigned integer,
        zero-padded: :func:`mragent.core.retrieval.slot_keys.prefixes` of the strings,
        read from the packed text without decoding it."""
        starts = np.frombuffer(self._start_at, np.int64)
        lengths = np.minimum(np.frombuffer(self._stop_at, np.int64) - starts, 8)
        # Every offset's next eight bytes as one integer (overlapping reads of the one
        # buffer), taken at each string's start, the bytes past the string masked.
        at_every_byte = np.ndarray(
            (len(self._text) - 7,), dtype=">u8", buffer=self._text, strides=(1,)
        )
        base = (at_every_byte[starts] & _HEAD_MASKS[lengths]).astype(np.uint64)
        if not self._added:
            return base
        added = [value.encode("utf-8", "surrogatepass")[:8] for value in self._added]
        tail = np.array(added, dtype="S8").view(">u8").astype(np.uint64)
        return np.concatenate([base, tail])

    def __len__(self) -> int:
        return self._count + len(self._added)

    def __getitem__(self, slot: int) -> str:
        if 0 <= slot < self._count:
            text = self._text[self._start_at[slot] : self._stop_at[slot]]
            return text.decode("utf-8", "surrogatepass")
        if slot < 0 and slot + len(self) >= 0:
            return self[slot + len(self)]
        return self._added[slot - self._count]

    def __iter__(self) -> Iterator[str]:
        yield from self.tolist()

    def append(self, value: str) -> None:
        """The string of the next position."""
        self._added.append(value)

    def tolist(self) -> list[str]:
        """Every string, decoded at once."""
        text = str(memoryview(self._text)[:-8], "utf-8", "surrogatepass")
        return [*text.split(SEPARATOR), *self._added]


StringColumn = list[str] | PackedStrings  # a list of strings, or one read from packed arrays
