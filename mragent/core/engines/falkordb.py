"""FalkorDB: the embedded default, over RESP (``falkordb://`` or ``redis://``)."""

from __future__ import annotations

from mragent.core.engines import Engine

ENGINE = Engine(
    name="falkordb",
    wire="resp",
    schemes={"falkordb": "falkordb", "redis": "redis"},
    default_port=6379,
    # Its HNSW index returns the cosine distance.
    vector_score="distance",
    # MULTI/EXEC does not roll back the statements before a failing one, so a
    # transaction holds one statement (atomic on its own).
    transactions=False,
)
