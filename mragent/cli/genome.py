"""``mragent genome``: inspect genes and presets."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from mragent.cli.common import JsonOption, cli_errors, emit_json, out
from mragent.core.genome import GENES, PRESETS, load_genome

app = typer.Typer(help="Show the ten genes, their ranges and the presets.", no_args_is_help=True)


@app.command("list")
def list_genes(as_json: JsonOption = False) -> None:
    """Table of every gene: stage, type, range, default."""
    if as_json:
        emit_json(
            [
                {"gene": s.name, "stage": s.stage, "type": s.kind, "range": s.describe_range(),
                 "default": s.default, "controls": s.doc}
                for s in GENES
            ]
        )  # fmt: skip
        return
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
    as_json: JsonOption = False,
) -> None:
    """Print a genome as JSON (validated); with or without --json, the output is JSON."""
    del as_json  # accepted like on every command; the genome is printed as JSON either way
    with cli_errors():
        emit_json(load_genome(genome).to_json_dict())
