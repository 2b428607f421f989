"""Memgraph over Bolt (``memgraph://``, or a ``bolt://`` server whose agent names Memgraph)."""

from __future__ import annotations

from mragent.core.engines import Engine

ENGINE = Engine(
    name="memgraph",
    wire="bolt",
    # The driver knows no memgraph:// scheme: the URL names the engine, Bolt carries it.
    schemes={"memgraph": "bolt"},
    default_port=7687,
    # vector_search.search returns the cosine similarity itself.
    vector_score="cosine",
    transactions=True,
    agent="memgraph",
    # One database per server: a URL path is ignored.
    databases=False,
)
