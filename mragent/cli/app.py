"""The root Typer app: wires the sub-commands together."""

from __future__ import annotations

from typing import Annotated

import typer

import mragent
from mragent.cli import bench, db, evolve, explain, genome
from mragent.cli.audit import audit_app
from mragent.cli.ingest import ingest_command
from mragent.cli.mcp import mcp_command
from mragent.cli.memory import (
    correct_command,
    forget_command,
    history_command,
    migrate_command,
    purge_command,
    recall_command,
    remember_command,
)
from mragent.cli.principal import principal_app
from mragent.cli.reembed import reembed_command
from mragent.cli.review import review_app, trust_app
from mragent.cli.transfer import export_command, import_command

app = typer.Typer(
    name="mragent",
    help="Reconstructive graph memory for LLM agents (Cue -> Tag -> Content on a graph DB).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"mragent {mragent.__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Reconstructive graph memory for LLM agents."""


app.add_typer(db.app, name="db")
app.add_typer(genome.app, name="genome")
app.command("ingest")(ingest_command)
app.command("bench")(bench.bench_command)
app.command("evolve")(evolve.evolve_command)
app.command("explain")(explain.explain_command)
app.command("remember")(remember_command)
app.command("recall")(recall_command)
app.command("correct")(correct_command)
app.command("forget")(forget_command)
app.command("purge")(purge_command)
app.command("history")(history_command)
app.command("reembed")(reembed_command)
app.command("migrate")(migrate_command)
app.command("export")(export_command)
app.command("import")(import_command)
app.add_typer(review_app, name="review")
app.add_typer(trust_app, name="trust")
app.add_typer(audit_app, name="audit")
app.add_typer(principal_app, name="principal")
app.command("mcp")(mcp_command)


def main() -> None:
    """Console-script entry point."""
    app()
