"""The compact reply reader: the values the ``falkordb`` client reads, from one server.

Each value goes to the embedded FalkorDB as a parameter and comes back computed by
the server; the same query is read by the client (over its decoding connection)
and by :func:`reply_rows` (over an undecoded one), and the two must be equal.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
import redis
from falkordb import FalkorDB
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mragent.core.store.falkordb_params import params_header
from mragent.core.store.falkordb_reply import UnreadableReply, reply_rows

GRAPH = "reply-reading"
# A NUL ends the query text FalkorDB parses (the header is the client's as well).
_CHARS = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")
_KEYS = st.text(_CHARS, min_size=1, max_size=8).filter(lambda key: "`" not in key)
_TEXT = st.text(_CHARS, max_size=20)
_FLOATS = st.floats(allow_nan=False, allow_infinity=False, width=32)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=20,
)


@pytest.fixture(scope="module")
def clients(falkordb_url: str) -> Iterator[tuple[Any, redis.Redis]]:
    parts = urlsplit(falkordb_url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 6379
    client = FalkorDB(host=host, port=port, password=parts.password)
    raw = redis.Redis(host=host, port=port, password=parts.password)
    yield client.select_graph(GRAPH), raw
    client.connection.close()
    raw.close()


def _both(clients: tuple[Any, redis.Redis], text: str) -> tuple[list[dict], list[dict]]:
    graph, raw = clients
    result = graph.query(text)
    columns = [c[1] for c in result.header]
    theirs = [dict(zip(columns, row, strict=True)) for row in result.result_set]
    ours = reply_rows(raw.execute_command("GRAPH.QUERY", GRAPH, text, "--compact"))
    return theirs, ours


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_VALUES, vector=st.lists(_FLOATS, min_size=1, max_size=8))
def test_values_read_as_the_client_reads_them(
    clients: tuple[Any, redis.Redis], value: Any, vector: list[float]
) -> None:
    text = params_header({"v": value, "w": vector}) + "RETURN $v AS v, vecf32($w) AS w, 7 AS n"
    theirs, ours = _both(clients, text)
    assert ours == theirs
    assert ours[0]["w"] == pytest.approx(vector, rel=1e-6)  # the vector itself, as floats
    assert all(type(x) is float for x in ours[0]["w"])


def test_points_rows_and_empty_replies(clients: tuple[Any, redis.Redis]) -> None:
    text = "UNWIND range(1, 3) AS i RETURN i, point({latitude: i, longitude: 2.5}) AS p"
    theirs, ours = _both(clients, text)
    assert ours == theirs and [row["i"] for row in ours] == [1, 2, 3]
    assert _both(clients, "UNWIND [] AS i RETURN i") == ([], [])


def test_a_failure_while_running_is_raised() -> None:
    failure = redis.exceptions.ResponseError("Division by zero")
    with pytest.raises(redis.exceptions.ResponseError, match="Division by zero"):
        reply_rows([[[1, b"z"]], [[[3, 1]]], failure])


def test_a_node_is_refused_not_guessed_at(clients: tuple[Any, redis.Redis]) -> None:
    _, raw = clients
    reply = raw.execute_command("GRAPH.QUERY", GRAPH, "CREATE (n:Probe) RETURN n", "--compact")
    with pytest.raises(UnreadableReply, match="type 8"):
        reply_rows(reply)
    raw.execute_command("GRAPH.DELETE", GRAPH)
