"""``mragent genome``: inspect genes and presets."""

from __future__ import annotations

from typing import Annotated

import typer
from rich import box
from rich.table import Table

from mragent.cli.common import JsonOption, cli_errors, emit_json, out
from mragent.core.genome import GENES, PRESETS, REAL_MODEL, load_genome

PRESETS_PER_TABLE = 4

app = typer.Typer(help="Show the genes, their ranges and the presets.", no_args_is_help=True)


@app.command("list")
def list_genes(as_json: JsonOption = False) -> None:
    """The genes (stage, type, range, what each controls), then every preset's values.

    Both tables fit 80 columns without cutting a value: long cells wrap, and the
    presets are a table of their own, one column each. --json: both as one document.
    """
    values = {name: genome.to_json_dict() for name, genome in PRESETS.items()}
    if as_json:
        rows = [
            {"gene": s.name, "stage": s.stage, "type": s.kind, "range": s.describe_range(),
             "default": s.default, "controls": s.doc}
            for s in GENES
        ]  # fmt: skip
        emit_json({"genes": rows, "presets": values, "real_model_default": REAL_MODEL})
        return
    genes = Table(title="genes", box=box.SIMPLE_HEAD)
    genes.add_column("gene", no_wrap=True)
    for column in ("stage", "type and range", "controls"):
        genes.add_column(column, overflow="fold")
    for spec in GENES:
        genes.add_row(spec.name, spec.stage, f"{spec.kind} {spec.describe_range()}", spec.doc)
    out.print(genes)
    names = list(PRESETS)
    # Four presets a table: five columns of "evidence-first" do not fit 80 columns whole.
    for first in range(0, len(names), PRESETS_PER_TABLE):
        shown = names[first : first + PRESETS_PER_TABLE]
        presets = Table(title="presets (mragent genome show NAME)", box=box.SIMPLE_HEAD)
        presets.add_column("gene", no_wrap=True)
        for name in shown:
            presets.add_column(name, overflow="fold")
        for spec in GENES:
            presets.add_row(spec.name, *(str(values[name][spec.name]) for name in shown))
        out.print(presets)
    out.print(
        f"Without --genome, a namespace stamped with a real model is read with {REAL_MODEL}, "
        "one stamped with the hashing embedder with default."
    )


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
