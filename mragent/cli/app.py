"""The root Typer app: wires the sub-commands together."""

from __future__ import annotations

import typer

from mragent.cli import bench, db, evolve, explain, genome
from mragent.cli.ingest import ingest_command

app = typer.Typer(
    name="mragent",
    help="Reconstructive graph memory for LLM agents (Cue -> Tag -> Content on a graph DB).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(db.app, name="db")
app.add_typer(genome.app, name="genome")
app.command("ingest")(ingest_command)
app.command("bench")(bench.bench_command)
app.command("evolve")(evolve.evolve_command)
app.command("explain")(explain.explain_command)


def main() -> None:
    """Console-script entry point."""
    app()
