"""Bearer tokens checked against the credentials file, for the HTTP transport.

The SDK's bearer middleware calls :meth:`CredentialsVerifier.verify_token` for
every request before the request reaches the MCP session, so a missing or wrong
token is answered 401 before any tool runs. The file is read again whenever it
changes on disk, so a principal revoked while the server runs is refused from
its next request on; a file that disappears or turns unreadable refuses everyone
(never the single-user default).
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

from mcp.server.auth.provider import AccessToken, TokenVerifier

from mragent.core.errors import MragentError
from mragent.memory.credentials import Credentials, file_stamp

# The one scope the SDK requires of a token here; what a principal may read and
# write is its grants, checked by the memory layer on every call.
SCOPE = "memory"


class CredentialsVerifier(TokenVerifier):
    """Maps a bearer token to the agent holding it.

    Args:
        path: The credentials file.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._stamp: tuple[int, int, int] | None = None
        self._credentials: Credentials | None = None
        self.generation = 0
        self._reload()

    async def verify_token(self, token: str) -> AccessToken | None:
        """The agent's access, or None (the middleware answers 401)."""
        credentials = self._reload()
        principal = credentials.by_token(token) if credentials else None
        if principal is None:
            return None
        return AccessToken(
            token=token,
            client_id=str(principal),
            scopes=[SCOPE],
            subject=str(principal),
            claims={"generation": self.generation},
        )

    def _reload(self) -> Credentials | None:
        """The credentials as the file holds them now (re-read when it changed)."""
        stamp = file_stamp(self.path)
        with self._lock:
            if stamp != self._stamp:
                self._stamp, self.generation = stamp, self.generation + 1
                try:
                    self._credentials = Credentials.load(self.path) if stamp else None
                except MragentError as exc:
                    # Refuse every token until the file is fixed; say why once.
                    print(f"mragent mcp: {exc}; refusing every token", file=sys.stderr)
                    self._credentials = None
            return self._credentials
