"""``mragent mcp``: serve the memory to agents over MCP (stdio or streamable HTTP)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from mragent.cli.common import (
    AuditLogOption,
    DbOption,
    EmbedderOption,
    GenomeOption,
    NsOption,
    cli_errors,
)
from mragent.cli.identity import PrincipalOption
from mragent.core.errors import ConfigError
from mragent.core.view import DEFAULT_SCOPE
from mragent.mcp_server import catalog

# Distinct spellings: the server both writes and reads, and one option spelled --scope
# for each would leave the write scope unreachable (the last declaration wins).
WriteScopeOption = Annotated[
    str,
    typer.Option(
        "--scope",
        help="Scope the agents' memories are written to; read too, unless --read-scope is given.",
    ),
]
ReadScopesOption = Annotated[
    list[str] | None,
    typer.Option(
        "--read-scope",
        help="Scope recall and explain read; repeat for several (default: --scope).",
    ),
]


class Transport(str, Enum):
    """How agents reach the server."""

    STDIO = "stdio"
    HTTP = "http"


def mcp_command(
    transport: Annotated[
        Transport,
        typer.Option(
            case_sensitive=False,
            help="stdio: one agent on the pipe, its principal fixed now. http: streamable "
            "HTTP, a bearer token on every request (needs credentials).",
        ),
    ] = Transport.STDIO,
    ns: NsOption = "default",
    scope: WriteScopeOption = DEFAULT_SCOPE,
    read_scope: ReadScopesOption = None,
    principal: PrincipalOption = None,
    host: Annotated[
        str, typer.Option(help="HTTP: the address to listen on (default: loopback only).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="HTTP: the port.")] = 8765,
    genome: GenomeOption = None,
    db: DbOption = None,
    audit: AuditLogOption = None,
    credentials: Annotated[
        Path | None,
        typer.Option(
            "--credentials",
            envvar="MRAGENT_CREDENTIALS",
            show_envvar=True,
            help="The credentials file (default: credentials.json under ./.mragent or "
            "$MRAGENT_HOME).",
        ),
    ] = None,
    embedder: EmbedderOption = None,
) -> None:
    with cli_errors():
        try:
            # The SDK is an optional extra: only this command needs it. A missing
            # extra is a configuration to fix (exit 2), as for the model extras.
            from mragent.mcp_server.server import ServeOptions, serve
        except ImportError as exc:
            raise ConfigError(
                f"the MCP server needs the mcp extra ({exc.name} is missing): "
                "pip install 'mragent[mcp]'"
            ) from None
        options = ServeOptions(
            ns=ns, db=db, scope=scope, read_scopes=read_scope, genome=genome,
            embedder=embedder, audit_log=audit, credentials=credentials,
        )  # fmt: skip
        serve(options, transport=transport.value, principal=principal, host=host, port=port)


# The help names the tools as the catalog declares them (the SDK is not needed for it).
mcp_command.__doc__ = catalog.summary()
