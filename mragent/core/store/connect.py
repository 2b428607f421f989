"""Pick and open a store from a database URL.

The scheme picks the engine (:mod:`mragent.core.engines`): ``falkordb://`` or
``redis://`` FalkorDB; ``neo4j://`` / ``neo4j+s://`` Neo4j; ``memgraph://``
Memgraph over Bolt; ``bolt://`` / ``bolt+s://`` whichever Bolt engine answers;
no URL at all: the embedded FalkorDB, started if needed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from urllib.parse import SplitResult, unquote, urlsplit

from mragent.core.engines import (
    DETECTING_SCHEMES,
    Engine,
    Wire,
    detect,
    engine_for_scheme,
    url_schemes,
)
from mragent.core.errors import ConfigError
from mragent.core.store.base import GraphStore


def open_store(url: str | None = None, *, home: Path | None = None) -> GraphStore:
    """Open the store a URL names (None: the embedded FalkorDB).

    Credentials come from the URL's user info; for Bolt URLs without them,
    from ``MRAGENT_DB_USER`` and ``MRAGENT_DB_PASSWORD``.

    Raises:
        ConfigError: when the URL is malformed or its scheme unknown.
        BackendUnavailable: when the server cannot be reached or started.
    """
    if not url:
        from mragent.core.store.embedded import ensure_running
        from mragent.core.store.falkordb import FalkorStore

        server = ensure_running(home)
        return FalkorStore(
            "127.0.0.1", server.port, password=server.password, server_pid=server.pid
        )
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    named = engine_for_scheme(scheme)
    if named is None and scheme not in DETECTING_SCHEMES:
        schemes = ", ".join(url_schemes())
        raise ConfigError(f"database URL {url!r}: scheme must be one of {schemes}")
    try:
        port = parts.port
    except ValueError:
        raise ConfigError(f"database URL {url!r}: invalid port") from None
    wire = named.wire if named else DETECTING_SCHEMES[scheme]
    # Without a port, the named engine's default; behind bolt://, the wire's fallback's.
    port = port or (named or detect(wire, "")).default_port
    return _OPENERS[wire](parts, scheme, named, port)


def _open_resp(parts: SplitResult, scheme: str, named: Engine | None, port: int) -> GraphStore:
    from mragent.core.store.falkordb import FalkorStore

    password = unquote(parts.password or "") or None
    return FalkorStore(parts.hostname or "127.0.0.1", port, password=password)


def _open_bolt(parts: SplitResult, scheme: str, named: Engine | None, port: int) -> GraphStore:
    from mragent.core.store.bolt import BoltStore

    user = unquote(parts.username) if parts.username else os.environ.get("MRAGENT_DB_USER")
    password = unquote(parts.password) if parts.password else os.environ.get("MRAGENT_DB_PASSWORD")
    driver_scheme = named.schemes[scheme] if named else scheme
    uri = f"{driver_scheme}://{parts.hostname or '127.0.0.1'}:{port}"
    auth = (user or "neo4j", password) if password else None
    database = parts.path.strip("/") or None
    return BoltStore(uri, auth, engine=named, database=database)


# One opener per wire protocol: an engine on an existing wire needs no code here.
_OPENERS: dict[Wire, Callable[[SplitResult, str, Engine | None, int], GraphStore]] = {
    "resp": _open_resp,
    "bolt": _open_bolt,
}
