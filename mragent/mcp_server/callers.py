"""One facade session per caller of the MCP server.

Over stdio there is one caller, authenticated when the server starts. Over
HTTP every request carries a bearer token the SDK has already verified
(:mod:`mragent.mcp_server.verifier`); its principal gets its own session, opened
through :func:`~mragent.facade.open_memory` with that token (so the grants are
the credentials file's), kept while the file is unchanged and replaced when it
changes (a grant edited while the server runs applies from the next call).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from mcp.server.auth.middleware.auth_context import get_access_token

from mragent.facade import MemorySession

Opener = Callable[[str], MemorySession]


class Callers:
    """The session of whoever makes the current tool call.

    Args:
        fixed: The stdio caller's session (None for HTTP).
        open_for_token: Opens a session for a verified HTTP token.
    """

    def __init__(self, fixed: MemorySession | None, open_for_token: Opener | None = None) -> None:
        self._fixed = fixed
        self._open = open_for_token
        self._sessions: dict[tuple[str, object], MemorySession] = {}
        # Replaced sessions may still serve a call in flight: closed at shutdown.
        self._retired: list[MemorySession] = []
        self._lock = threading.Lock()

    def current(self) -> MemorySession:
        """The caller's session.

        Raises:
            PermissionError: an HTTP call without a verified token (the middleware
                refuses those first; this is the second lock on the door).
        """
        access = get_access_token()
        if access is None:
            if self._fixed is None:
                raise PermissionError("no authenticated caller")
            return self._fixed
        assert self._open is not None
        key = (access.client_id, (access.claims or {}).get("generation"))
        with self._lock:
            session = self._sessions.get(key)
            if session is None:
                for old in [k for k in self._sessions if k[0] == access.client_id]:
                    self._retired.append(self._sessions.pop(old))
                session = self._sessions[key] = self._open(access.token)
            return session

    def close(self) -> None:
        """Close every session (the server is stopping)."""
        with self._lock:
            for session in [*self._sessions.values(), *self._retired]:
                session.close()
            self._sessions.clear()
            self._retired.clear()
        if self._fixed is not None:
            self._fixed.close()
