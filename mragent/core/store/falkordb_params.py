"""The ``CYPHER name=value ...`` header FalkorDB takes its query parameters in.

FalkorDB receives parameters as Cypher literals in front of the query text.
The ``falkordb`` client builds that header with a recursive function that
tests each value's type one by one; on an ingest batch (about 400,000
embedding floats) that took as long as the server's own work. This module
writes the same text, byte for byte (a test compares the two), with the
common shapes taken straight: a list of floats is joined in one call.

Strings are quoted and escaped exactly as the client does (backslash and
double quote), so a user string stays a literal and is never query text.

An embedding travels as a float32 numpy vector (the client has no such
shape): nine significant digits are the fewest that give back every float32
exactly, so a vector is written in about half the text of its float64
``repr``, formatted by one ``%`` over the whole vector, and the server parses
half as much. ``vecf32`` stores the same vector either way.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

import numpy as np


def _string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


@lru_cache(maxsize=4096, typed=True)  # the same few map keys, once per record
def _key(key: object) -> str:
    text = key.decode() if isinstance(key, bytes) else str(key)
    if not text or "`" in text:
        # The header parser takes no escaped backtick, and no empty name.
        raise ValueError(f"parameter or map key {text!r} cannot be sent to FalkorDB")
    return f"`{text}`"


_NUMBERS = (float, int)


@cache
def _vector_format(size: int) -> str:
    return "[" + ",".join(["%.9g"] * size) + "]"


def literal(value: Any) -> str:
    """One parameter value as the Cypher literal FalkorDB parses back to it."""
    kind = type(value)
    if kind is np.ndarray and value.dtype == np.float32 and value.ndim == 1:
        return _vector_format(value.size) % tuple(value.tolist())
    if kind is str:
        return _string(value)
    if kind is float or kind is int:
        return str(value)
    if kind is list and value and type(value[0]) in _NUMBERS:
        first = type(value[0])
        if all(type(item) is first for item in value):
            return "[" + ",".join(map(str, value)) + "]"
    # The client's own order of checks, for every other shape (str subclasses included).
    if isinstance(value, str):
        return _string(value)
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(map(literal, value)) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{_key(k)}:{literal(v)}" for k, v in value.items()) + "}"
    return str(value)


def params_header(params: dict[str, Any] | None) -> str:
    """The header for ``params`` (empty for none): prepend it to the query text.

    Raises:
        ValueError: for a parameter or map key FalkorDB cannot take.
    """
    if not params:
        return ""
    return "CYPHER " + "".join(f"{_key(k)}={literal(v)} " for k, v in params.items())
