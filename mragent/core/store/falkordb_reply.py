"""Rows from the compact reply of FalkorDB's ``GRAPH.QUERY``.

A compact reply is ``[header, records, statistics]`` (``[statistics]`` when the
query returns nothing): the header pairs a column type with each column name,
and every cell of a record is ``[type, value]``. The ``falkordb`` client reads
the reply over a connection that decodes every string, so a vector's numbers
reach Python as text and are parsed one ``float()`` at a time. Read undecoded,
hiredis hands a vector over as Python floats already (parsed in C), and strings
are decoded here, where their type says they are text: a change-feed page of
2,000 cue vectors (256 dimensions) takes 107 ms here against the client's 189.

A cell reads as the ``falkordb`` client reads it (a test compares the two over
values the server computed): strings, integers, doubles, booleans, null, lists,
maps, points and vectors. mragent's queries return values, never a node, an
edge or a path; a cell of another type is refused rather than guessed at.
"""

from __future__ import annotations

from typing import Any

from mragent.core.store.base import Rows

_NULL, _STRING, _INTEGER, _BOOLEAN, _DOUBLE, _ARRAY = 1, 2, 3, 4, 5, 6
_MAP, _POINT, _VECTOR = 10, 11, 12


class UnreadableReply(ValueError):
    """A reply holds a cell of a type mragent's queries never return."""


def reply_rows(reply: list[Any]) -> Rows:
    """The rows of one compact reply, each a dict of column name to value.

    Raises:
        redis.exceptions.ResponseError: The server's error, when the query failed
            while it ran (the reply then ends with it instead of statistics).
        UnreadableReply: A cell of a type no mragent query returns.
    """
    if isinstance(reply[-1], Exception):
        raise reply[-1]
    if len(reply) < 3 or not reply[0]:
        return []
    columns = [name.decode() for _, name in reply[0]]
    return [
        dict(zip(columns, [_cell(cell) for cell in record], strict=True)) for record in reply[1]
    ]


def _cell(cell: list[Any]) -> Any:
    kind, value = cell
    # The common kinds first: this runs for every cell of every reply.
    if kind == _STRING:
        return value.decode()
    if kind in (_INTEGER, _NULL):
        return value
    if kind == _DOUBLE:
        return float(value)
    if kind == _ARRAY:
        return [_cell(item) for item in value]
    if kind == _VECTOR:
        # hiredis reads the vector's numbers as doubles; without it they are text.
        return value if not value or type(value[0]) is float else [float(x) for x in value]
    if kind == _BOOLEAN:
        return value == b"true"
    if kind == _MAP:
        return {value[i].decode(): _cell(value[i + 1]) for i in range(0, len(value), 2)}
    if kind == _POINT:
        return {"latitude": float(value[0]), "longitude": float(value[1])}
    raise UnreadableReply(f"a cell of FalkorDB value type {kind}, which no mragent query returns")
