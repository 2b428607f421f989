"""``mragent genome``: inspect genes and presets."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from mragent.cli.common import cli_errors, out
from mragent.core.genome import GENES, PRESETS, load_genome

app = typer.Typer(help="Show the ten genes, their ranges and the presets.", no_args_is_help=True)


@app.command("list")
def list_genes() -> None:
    """Table of every gene: stage, type, range, default."""
    table = Table()
    table.add_column("gene", no_wrap=True)
    for column in ("stage", "type", "range", "default", "controls"):
        table.add_column(column)
    for spec in GENES:
        table.add_row(
            spec.name, spec.stage, spec.kind, spec.describe_range(), str(spec.default), spec.doc
        )
    out.print(table)


@app.command()
def show(
    genome: Annotated[
        str,
        typer.Argument(help=f"A preset ({', '.join(PRESETS)}), a genome JSON file or a report."),
    ] = "default",
) -> None:
    """Print a genome as JSON (validated)."""
    with cli_errors():
        out.print_json(json.dumps(load_genome(genome).to_json_dict()))
