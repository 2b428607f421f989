"""``mragent db``: manage the embedded FalkorDB."""

from __future__ import annotations

from typing import Any

import typer

from mragent.cli.common import JsonOption, cli_errors, emit_json, say
from mragent.cli.identity import ReaderOption, require_human
from mragent.core.paths import default_home
from mragent.core.store import embedded

app = typer.Typer(help="Start, stop and inspect the embedded FalkorDB.", no_args_is_help=True)


def _server(server: embedded.EmbeddedServer) -> dict[str, Any]:
    return {"url": server.url, "pid": server.pid, "data": str(server.data_dir)}


@app.command()
def start(principal: ReaderOption = None, as_json: JsonOption = False) -> None:
    """Start the embedded FalkorDB (or report the one already running). Humans only."""
    with cli_errors():
        require_human(principal, "db start")
        running = embedded.status()
        server = running or embedded.ensure_running()
        verb = "already running" if running else "started"
        if as_json:
            emit_json({"state": verb, **_server(server)})
        else:
            say(f"{verb}: {server.url} (pid {server.pid}, data {server.data_dir})")


@app.command()
def stop(principal: ReaderOption = None, as_json: JsonOption = False) -> None:
    """Stop the embedded FalkorDB, saving its data. Humans only: every session of
    every principal shares it."""
    with cli_errors():
        require_human(principal, "db stop")
        stopped = embedded.stop()
        if as_json:
            emit_json({"state": "stopped" if stopped else "not running"})
        else:
            say("stopped" if stopped else "not running")


@app.command()
def status(as_json: JsonOption = False) -> None:
    """Show whether the embedded FalkorDB runs; exit 3 if it does not."""
    server = embedded.status()
    if as_json:
        state = {"state": "running", **_server(server)} if server else {"state": "not running"}
        emit_json({**state, "home": str(default_home())})
    elif server is None:
        say(f"not running (home {default_home()})")
    else:
        say(f"running: {server.url} (pid {server.pid}, data {server.data_dir})")
    if server is None:
        raise typer.Exit(code=3)
