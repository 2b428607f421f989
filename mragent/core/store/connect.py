"""Pick and open a store from a database URL.

``falkordb://host:port`` FalkorDB; ``bolt://`` engine detected from the server;
``neo4j://`` / ``neo4j+s://`` Neo4j; ``memgraph://host:port`` Memgraph over Bolt;
no URL at all: the embedded FalkorDB, started if needed.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlsplit

from mragent.core.errors import ConfigError
from mragent.core.store.base import GraphStore

SCHEMES = ("falkordb", "redis", "bolt", "bolt+s", "neo4j", "neo4j+s", "memgraph")


def open_store(url: str | None = None, *, home: Path | None = None) -> GraphStore:
    """Open the store a URL names (None: the embedded FalkorDB).

    Credentials come from the URL's user info; for Bolt URLs without them,
    from ``MRAGENT_DB_USER`` and ``MRAGENT_DB_PASSWORD``.

    Raises:
        ConfigError: when the URL is malformed or its scheme unknown.
        BackendUnavailable: when the server cannot be reached or started.
    """
    from mragent.core.store.falkordb import FalkorStore

    if not url:
        from mragent.core.store.embedded import ensure_running

        server = ensure_running(home)
        return FalkorStore(
            "127.0.0.1", server.port, password=server.password, server_pid=server.pid
        )
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise ConfigError(f"database URL {url!r}: scheme must be one of {', '.join(SCHEMES)}")
    try:
        port = parts.port
    except ValueError:
        raise ConfigError(f"database URL {url!r}: invalid port") from None
    host = parts.hostname or "127.0.0.1"
    if scheme in ("falkordb", "redis"):
        return FalkorStore(host, port or 6379, password=unquote(parts.password or "") or None)
    user = unquote(parts.username) if parts.username else os.environ.get("MRAGENT_DB_USER")
    password = unquote(parts.password) if parts.password else os.environ.get("MRAGENT_DB_PASSWORD")

    from mragent.core.store.bolt import BoltStore

    engine = {"neo4j": "neo4j", "neo4j+s": "neo4j", "memgraph": "memgraph"}.get(scheme)
    wire = {"memgraph": "bolt"}.get(scheme, scheme)
    uri = f"{wire}://{host}:{port or 7687}"
    auth = (user or "neo4j", password) if password else None
    database = parts.path.strip("/") or None
    return BoltStore(uri, auth, engine=engine, database=database)
