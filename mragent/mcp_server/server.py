"""``mragent mcp``: the memory as an MCP server, over stdio or streamable HTTP.

* **stdio**: the principal is fixed when the server starts, from its credential
  (the agent's ``$MRAGENT_TOKEN`` or key file; without credentials configured,
  the principal named). With credentials configured the server serves agents
  only: the pipe gives no way to tell who sits at the other end, so the caller
  proves itself with a token before the server starts.
* **http**: loopback by default (``127.0.0.1``; the SDK refuses foreign
  ``Host`` headers there). Every request carries ``Authorization: Bearer
  TOKEN``; the token maps to one agent and its grants, and a request without a
  valid one is answered 401 before any work. Needs credentials configured.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import anyio
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from pydantic import AnyHttpUrl

from mragent import __version__
from mragent.core.errors import AccessDenied, ConfigError
from mragent.core.view import DEFAULT_SCOPE
from mragent.facade import MemorySession, open_memory
from mragent.mcp_server.callers import Callers
from mragent.mcp_server.catalog import instructions
from mragent.mcp_server.stdio import run_stdio
from mragent.mcp_server.tools import register
from mragent.mcp_server.verifier import SCOPE, CredentialsVerifier
from mragent.memory.credentials import Credentials, credentials_path

INSTRUCTIONS = instructions()
MCP_PATH = "/mcp"
# Logs go to stderr only; a refused call is the agent's answer, not a server event.
LOG: Literal["WARNING"] = "WARNING"


@dataclass(frozen=True)
class ServeOptions:
    """What every session of one server shares.

    Attributes:
        ns: The namespace served.
        db: Database URL (None: ``$MRAGENT_DB`` or the embedded FalkorDB).
        scope: The scope written by default.
        read_scopes: The scopes read by default (None: ``scope``).
        genome: Preset or genome file used by recall and explain.
        embedder: Embedder spec (None: the namespace's stamped one).
        audit_log: The audit log (None: the default).
        credentials: The credentials file (None: the default).
    """

    ns: str = "default"
    db: str | None = None
    scope: str = DEFAULT_SCOPE
    read_scopes: Sequence[str] | None = None
    genome: str | None = None
    embedder: str | None = None
    audit_log: Path | None = None
    credentials: Path | None = None

    def open(self, *, principal: str | None = None, token: str | None = None) -> MemorySession:
        """A facade session for one caller."""
        return open_memory(
            self.ns, principal=principal, token=token, db=self.db, scope=self.scope,
            read_scopes=self.read_scopes, genome=self.genome, embedder=self.embedder,
            audit_log=self.audit_log, credentials=self.credentials,
        )  # fmt: skip


def stdio_server(options: ServeOptions, principal: str | None) -> tuple[MCPServer, Callers]:
    """The server for one stdio caller, authenticated now.

    Raises:
        AccessDenied: with credentials configured, a caller without an agent's token.
        ConfigError: without credentials, no principal named.
    """
    session = options.open(principal=principal)
    if session.principal is None:
        session.close()
        raise ConfigError("--principal is required: name who the agent is (e.g. agent:scout)")
    configured = Credentials.load(options.credentials) is not None
    if configured and not session.principal.is_agent:
        session.close()
        raise AccessDenied(
            f"the MCP server serves agents; {session.principal} presented no agent token "
            "($MRAGENT_TOKEN or $MRAGENT_TOKEN_FILE)"
        )
    callers = Callers(session)
    server = MCPServer("mragent", instructions=INSTRUCTIONS, version=__version__, log_level=LOG)
    register(server, callers)
    return server, callers


def http_server(options: ServeOptions, host: str, port: int) -> tuple[MCPServer, Callers]:
    """The server for bearer-token callers over streamable HTTP.

    Raises:
        ConfigError: when no credentials are configured (there is no token to check).
    """
    path = options.credentials or credentials_path()
    if Credentials.load(path) is None:
        raise ConfigError(
            f"the HTTP transport checks a token on every request, and {path} does not "
            "exist: add an agent first (mragent principal add agent:NAME)"
        )
    url = f"http://{host}:{port}{MCP_PATH}"
    server = MCPServer(
        "mragent",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level=LOG,
        token_verifier=CredentialsVerifier(path),
        auth=AuthSettings(
            # The tokens are this server's own (the credentials file), not an OAuth
            # issuer's: the issuer is the server itself, and the verifier is what
            # binds a token to this memory.
            issuer_url=AnyHttpUrl(f"http://{host}:{port}"),
            resource_server_url=AnyHttpUrl(url),
            required_scopes=[SCOPE],
            validate_token_resource=False,
        ),
    )
    callers = Callers(None, lambda token: options.open(token=token))
    register(server, callers)
    return server, callers


def serve(
    options: ServeOptions,
    *,
    transport: str,
    principal: str | None = None,
    host: str = "127.0.0.1",
    port: int = 8765,
) -> None:
    """Run the server until its input closes (stdio) or it is interrupted (HTTP)."""
    if transport == "stdio":
        server, callers = stdio_server(options, principal)
        try:
            anyio.run(run_stdio, server)
        finally:
            callers.close()
        return
    server, callers = http_server(options, host, port)
    try:
        # One JSON response per request instead of an SSE stream: the tools send no
        # progress events, and it halves the per-call overhead (benchmarks/mcp_bench.py).
        server.run(
            transport="streamable-http", host=host, port=port, streamable_http_path=MCP_PATH,
            json_response=True,
        )  # fmt: skip
    finally:
        callers.close()
