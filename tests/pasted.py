"""Run a printed query as a person pastes it into the engine's own client.

The browser Cypher draws paths; mragent's stores read values only (a FalkorDB
reply's nodes and paths are refused, :mod:`mragent.core.store.falkordb_reply`),
so on FalkorDB the text goes through the ``falkordb`` client, which reads paths.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlsplit

from falkordb import FalkorDB

from mragent.core.store.base import GraphStore


def pasted(store: GraphStore, text: str) -> list[dict[str, Any]]:
    """The rows ``text`` returns on ``store``'s graph, read by the engine's client."""
    if store.capabilities.engine != "falkordb":
        return store._execute("browser_cypher", text, {})
    parts = urlsplit(store.secret_url)
    password = unquote(parts.password or "") or None
    client = FalkorDB(host=parts.hostname, port=parts.port, password=password)
    try:
        result = client.select_graph(store._graph_name).query(text)  # type: ignore[attr-defined]
        columns = [column[1] for column in result.header]
        return [dict(zip(columns, row, strict=True)) for row in result.result_set]
    finally:
        client.connection.close()
