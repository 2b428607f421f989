"""``mragent hook recall|remember|serve``: memory for coding agents through their hooks.

Each reads the hook event (JSON) on stdin and prints what the agent adds to its
context (:mod:`mragent.integrations.hooks`). When a resident server
(``mragent hook serve``, :mod:`mragent.integrations.hook_server`) answers on
the socket, ``recall`` and ``remember`` forward the event to it and print its
answer; otherwise they open the memory themselves. ``remember`` returns at once,
opening nothing, when the prompt marks no line.

This module imports the memory layers only on the path that opens the memory,
and its options repeat a few of :mod:`mragent.cli.common`'s for that reason: a
hook runs on every prompt, and importing the layers is most of a cold run.

Exit codes as for the memory commands: 0 done, 1 database error or a server
that failed, 2 bad input, 3 refused.
"""

from __future__ import annotations

import http.client
import socket
import sys
from pathlib import Path
from typing import Annotated

import typer

from mragent.core.paths import default_home

hook_app = typer.Typer(
    help="Coding-agent hooks: recall memories into a prompt's context, remember what the "
    "person marked.",
    no_args_is_help=True,
)

DEFAULT_PREFIX = "remember:"  # mragent.integrations.hooks.DEFAULT_PREFIX, kept light here
DEFAULT_MAX_TOKENS = 400
SOCKET_NAME = "hook.sock"
FORWARD_TIMEOUT = 30.0

NsOption = Annotated[
    str, typer.Option("--ns", envvar="MRAGENT_NS", help="Namespace of the memory.")
]
DbOption = Annotated[
    str | None,
    typer.Option(
        "--db", envvar="MRAGENT_DB", show_envvar=True,
        help="Database URL (default: the embedded FalkorDB under $MRAGENT_HOME).",
    ),
]  # fmt: skip
PrincipalOption = Annotated[
    str | None,
    typer.Option(
        "--principal", envvar="MRAGENT_PRINCIPAL", show_envvar=True,
        help="Who reads and writes (human:NAME or agent:NAME; with credentials configured, "
        "the authenticated one: the OS user's human or the agent presenting $MRAGENT_TOKEN).",
    ),
]  # fmt: skip
SocketOption = Annotated[
    Path | None,
    typer.Option(
        "--socket", envvar="MRAGENT_HOOK_SOCKET", show_envvar=True,
        help=f"The resident server's Unix socket (default: $MRAGENT_HOME/{SOCKET_NAME}).",
    ),
]  # fmt: skip
MaxTokensOption = Annotated[
    int,
    typer.Option(min=1, max=100_000, help="Budget for the recalled context, in tokens."),
]
PendingOption = Annotated[
    bool, typer.Option("--include-pending", help="Recall pending memories too.")
]
EmbedderOption = Annotated[
    str | None,
    typer.Option(
        "--embedder", metavar="SPEC", envvar="MRAGENT_EMBEDDER", show_envvar=True,
        help="Embedder, as for 'mragent recall'; refused unless the namespace is stamped "
        "with it. Given, the hook opens the memory itself instead of forwarding.",
    ),
]  # fmt: skip
PrefixOption = Annotated[
    str,
    typer.Option(
        "--prefix", envvar="MRAGENT_HOOK_PREFIX", show_envvar=True,
        help="The marker that starts a line to remember; nothing else is stored.",
    ),
]  # fmt: skip


@hook_app.command("recall")
def recall_command(
    ns: NsOption = "default",
    principal: PrincipalOption = None,
    db: DbOption = None,
    max_tokens: MaxTokensOption = DEFAULT_MAX_TOKENS,
    include_pending: PendingOption = False,
    socket_path: SocketOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Print the memories recalled for the prompt of the hook event on stdin."""
    raw = sys.stdin.read()
    forwarded = None if embedder else _forward(_socket(socket_path), "/recall", raw, ns)
    if forwarded is not None:
        _print(forwarded)
        return
    from mragent.cli.common import cli_errors
    from mragent.cli.memory import session
    from mragent.integrations.hooks import parse_event, recall_context

    with cli_errors():
        event = parse_event(raw)
        with session(principal, ns, db, write=False, embedder=embedder) as memory:
            text = recall_context(
                memory, event.prompt, max_tokens=max_tokens, include_pending=include_pending
            )
    _print(text)


@hook_app.command("remember")
def remember_command(
    ns: NsOption = "default",
    principal: PrincipalOption = None,
    db: DbOption = None,
    prefix: PrefixOption = DEFAULT_PREFIX,
    socket_path: SocketOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Remember the lines of the hook event's prompt that start with the prefix."""
    raw = sys.stdin.read()
    marker = prefix.strip().casefold()
    # Nothing marked (the usual prompt): nothing to open, nothing written.
    if marker and marker not in raw.casefold():
        return
    forwarded = None if embedder else _forward(_socket(socket_path), "/remember", raw, ns)
    if forwarded is not None:
        _print(forwarded)
        return
    from mragent.cli.common import cli_errors
    from mragent.cli.memory import session
    from mragent.integrations.hooks import parse_event, remember_marked

    with cli_errors():
        event = parse_event(raw)
        with session(principal, ns, db, write=True, embedder=embedder) as memory:
            _print("\n".join(remember_marked(memory, event.prompt, prefix=prefix)))


@hook_app.command("serve")
def serve_command(
    ns: NsOption = "default",
    principal: PrincipalOption = None,
    db: DbOption = None,
    max_tokens: MaxTokensOption = DEFAULT_MAX_TOKENS,
    include_pending: PendingOption = False,
    prefix: PrefixOption = DEFAULT_PREFIX,
    socket_path: SocketOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Keep one session open and answer hook events on a Unix socket (owner-only)."""
    from mragent.cli.common import cli_errors
    from mragent.cli.memory import session
    from mragent.integrations.hook_server import HookSettings, bind

    path = _socket(socket_path)
    # Opened as a reader: a server without a principal recalls, and refuses remember.
    with cli_errors(), session(principal, ns, db, write=False, embedder=embedder) as memory:
        memory.recall("warm up")  # build the reader before the first prompt waits for it
        settings = HookSettings(max_tokens, include_pending, prefix)
        server = bind(memory, path, settings)
        print(f"mragent hook server: namespace {ns!r} on {path}", file=sys.stderr, flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
            path.unlink(missing_ok=True)


def _socket(given: Path | None) -> Path:
    return given if given is not None else default_home() / SOCKET_NAME


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: Path) -> None:
        super().__init__("mragent", timeout=FORWARD_TIMEOUT)
        self._path = str(path)

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(FORWARD_TIMEOUT)
        self.sock.connect(self._path)


def _forward(path: Path, endpoint: str, raw: str, ns: str) -> str | None:
    """The server's answer to the event, or None when no server answers on ``path``.

    Raises:
        typer.Exit: with the server's reason, when it answers with an error.
    """
    if not path.exists():
        return None
    conn = _UnixConnection(path)
    try:
        conn.request("POST", endpoint, raw.encode(), {"X-Mragent-Namespace": ns})
        reply = conn.getresponse()
        body = reply.read().decode()
    except OSError:
        return None  # a socket left behind, or a server gone: open the memory here instead
    finally:
        conn.close()
    if reply.status != 200:
        print(f"error: hook server: {body.strip()}", file=sys.stderr)
        raise typer.Exit(code={400: 2, 403: 3, 409: 2}.get(reply.status, 1))
    return body.rstrip("\n")


def _print(text: str) -> None:
    if text:
        print(text)
