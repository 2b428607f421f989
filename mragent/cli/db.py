"""``mragent db``: manage the embedded FalkorDB."""

from __future__ import annotations

import typer

from mragent.cli.common import cli_errors, out
from mragent.core.paths import default_home
from mragent.core.store import embedded

app = typer.Typer(help="Start, stop and inspect the embedded FalkorDB.", no_args_is_help=True)


@app.command()
def start() -> None:
    """Start the embedded FalkorDB (or report the one already running)."""
    with cli_errors():
        running = embedded.status()
        server = running or embedded.ensure_running()
        verb = "already running" if running else "started"
        out.print(
            f"{verb}: {server.url} (pid {server.pid}, data {server.data_dir})", highlight=False
        )


@app.command()
def stop() -> None:
    """Stop the embedded FalkorDB, saving its data."""
    with cli_errors():
        out.print("stopped" if embedded.stop() else "not running")


@app.command()
def status() -> None:
    """Show whether the embedded FalkorDB runs; exit 3 if it does not."""
    server = embedded.status()
    if server is None:
        out.print(f"not running (home {default_home()})", highlight=False)
        raise typer.Exit(code=3)
    out.print(f"running: {server.url} (pid {server.pid}, data {server.data_dir})", highlight=False)
