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

import numpy as np

SEPARATOR = "\x00"


def pack_strings(values: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """``values`` as (UTF-8 text joined by NULs, character end of each string in it)."""
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


def packed(name: str, values: list[str]) -> dict[str, np.ndarray]:
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
