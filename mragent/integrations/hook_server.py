"""A resident hook server: one open session answering hook events over a Unix socket.

A cold ``mragent hook recall`` pays for starting Python, importing the layers,
opening the store and building the reader before it reconstructs anything;
the server pays that once. It speaks plain HTTP on a Unix socket, so a hook
command can be ``mragent hook recall`` (which forwards to the server when its
socket answers) or, without starting Python at all,
``curl -s --unix-socket PATH --data-binary @- http://mragent/recall``.

``POST /recall`` and ``POST /remember`` take the hook event as the body and
answer ``text/plain`` (what the hook prints), ``400`` for a malformed event,
``403`` when the session's principal is refused, ``409`` when the request's
``X-Mragent-Namespace`` header names another namespace than the server's. The socket file is created
owner-only (mode 0600), so only its owner's processes reach the session,
whose principal, grants and review rules apply to every request as they do
in the CLI.
"""

from __future__ import annotations

import contextlib
import os
import socket
import socketserver
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from mragent.core.errors import AccessDenied, ConfigError
from mragent.facade.session import MemorySession
from mragent.integrations.hooks import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_PREFIX,
    parse_event,
    recall_context,
    remember_marked,
)

MAX_BODY = 1 << 20  # a hook event is a prompt; a megabyte is far beyond one


@dataclass(frozen=True)
class HookSettings:
    """How the server answers: the token budget, the read view and the remember marker."""

    max_tokens: int = DEFAULT_MAX_TOKENS
    include_pending: bool = False
    prefix: str = DEFAULT_PREFIX


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    answer: Callable[[str, str], str]
    ns: str


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if not 0 < length <= MAX_BODY:
            self._reply(400, f"a hook event of 1 to {MAX_BODY} bytes is expected")
            return
        body = self.rfile.read(length).decode("utf-8", errors="replace")
        asked = self.headers.get("X-Mragent-Namespace")
        if asked is not None and asked != self.server.ns:
            self._reply(409, f"this server answers namespace {self.server.ns!r}, not {asked!r}")
            return
        try:
            self._reply(200, self.server.answer(self.path, body))
        except AccessDenied as exc:
            self._reply(403, str(exc))
        except (ConfigError, KeyError) as exc:
            self._reply(400 if isinstance(exc, ConfigError) else 404, str(exc))

    def _reply(self, status: int, text: str) -> None:
        data = (text + "\n" if text else "").encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def address_string(self) -> str:
        return "unix"  # a Unix socket peer has no address

    def log_message(self, format: str, *args: object) -> None:
        """Requests are not logged: a line would carry the path only, never the prompt."""


def answer(session: MemorySession, settings: HookSettings) -> Callable[[str, str], str]:
    """The function the server answers a request path and body with."""

    def respond(path: str, body: str) -> str:
        event = parse_event(body)
        if path == "/recall":
            return recall_context(
                session, event.prompt, max_tokens=settings.max_tokens,
                include_pending=settings.include_pending,
            )  # fmt: skip
        if path == "/remember":
            return "\n".join(remember_marked(session, event.prompt, prefix=settings.prefix))
        raise KeyError(f"no endpoint {path}; POST /recall or /remember")

    return respond


@contextlib.contextmanager
def running(
    session: MemorySession, path: Path, settings: HookSettings = HookSettings()
) -> Iterator[Path]:
    """Serve on the Unix socket ``path`` in a background thread while the block runs."""
    server = bind(session, path, settings)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield path
    finally:
        server.shutdown()
        server.server_close()
        path.unlink(missing_ok=True)


def bind(session: MemorySession, path: Path, settings: HookSettings) -> _Server:
    """A server bound to ``path`` (owner-only), ready for ``serve_forever``.

    Raises:
        ConfigError: when another server already answers on ``path``.
    """
    if path.exists():
        if _answers(path):
            raise ConfigError(f"a hook server already answers on {path}")
        path.unlink()  # left by a server that did not shut down
    path.parent.mkdir(parents=True, exist_ok=True)
    old = os.umask(0o177)
    try:
        server = _Server(str(path), _Handler)
    finally:
        os.umask(old)
    server.answer = answer(session, settings)
    server.ns = session.ns
    return server


def _answers(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True
