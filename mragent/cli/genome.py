"""``mragent genome``: inspect genes and presets."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich import box
from rich.table import Table

from mragent.cli.common import cli_errors, out
from mragent.core.genome import GENES, PRESETS, load_genome

app = typer.Typer(help="Show the ten genes, their ranges and the presets.", no_args_is_help=True)


@app.command("list")
def list_genes() -> None:
    """The genes (stage, type, range, what each controls), then every preset's values.

    Both tables fit 80 columns without cutting a value: long cells wrap, and the
    presets are a table of their own, one column each.
    """
    genes = Table(title="genes", box=box.SIMPLE_HEAD)
    genes.add_column("gene", no_wrap=True)
    for column in ("stage", "type and range", "controls"):
        genes.add_column(column, overflow="fold")
    for spec in GENES:
        genes.add_row(spec.name, spec.stage, f"{spec.kind} {spec.describe_range()}", spec.doc)
    out.print(genes)
    presets = Table(title="presets (mragent genome show NAME)", box=box.SIMPLE_HEAD)
    presets.add_column("gene", no_wrap=True)
    for name in PRESETS:
        presets.add_column(name, overflow="fold")
    values = {name: genome.to_json_dict() for name, genome in PRESETS.items()}
    for spec in GENES:
        presets.add_row(spec.name, *(str(values[name][spec.name]) for name in PRESETS))
    out.print(presets)


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
