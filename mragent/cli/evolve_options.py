"""The options and choices of ``mragent evolve``, declared once for its command."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from mragent.core.genome import GENES, GeneSet
from mragent.evolution.fidelity import DEFAULT_SHARE
from mragent.evolution.objectives import ACCURACY, RECALL
from mragent.evolution.study import NSGA2, NSGA3

EXIT_INTERRUPTED = 130
_DEPTH = next(spec for spec in GENES if spec.name == "traversalDepth")


class Selection(str, Enum):
    """Survivor selection of the DEAP loop."""

    NSGA2 = NSGA2
    NSGA3 = NSGA3


SCREEN_FROM = 24
"""Training questions from which racing screens by default (a third: 8 or more)."""


def screen_share_for(screen: float | None, train_questions: int) -> float | None:
    """The racing share: as given (0 or 1: off), else a third from :data:`SCREEN_FROM`."""
    if screen is None:
        return DEFAULT_SHARE if train_questions >= SCREEN_FROM else None
    return screen if 0.0 < screen < 1.0 else None


class Objective(str, Enum):
    """What the search maximises (``auto``: recall for musique/hotpotqa, else accuracy)."""

    AUTO = "auto"
    ACCURACY = ACCURACY.name
    RECALL = RECALL.name


def objective_for(choice: Objective, dataset: str | None) -> str:
    """The objective set ``choice`` names (``auto``: by the dataset)."""
    if choice is not Objective.AUTO:
        return choice.value
    # The public datasets carry gold supporting passages for every question.
    return RECALL.name if dataset in ("musique", "hotpotqa") else ACCURACY.name


def depth_range(max_depth: int | None) -> tuple[tuple[str, float, float], ...]:
    """The gene range ``--max-depth`` sets (none without it)."""
    if max_depth is None:
        return ()
    assert _DEPTH.low is not None
    return (("traversalDepth", float(_DEPTH.low), float(max_depth)),)


GenerationsOption = Annotated[
    int, typer.Option(min=0, help="Generations after the initial population.")
]
PopulationOption = Annotated[int, typer.Option(min=4, help="Genomes per generation.")]
SeedOption = Annotated[
    int, typer.Option(help="Seeds the search, the split and random search (reproducible).")
]
SplitOption = Annotated[
    str,
    typer.Option(
        help="Held-out questions: a fraction such as 0.3 (stratified by kind, picked by "
        "the seed) or comma-separated question ids; 0 holds none out."
    ),
]
WorkersOption = Annotated[
    int,
    typer.Option(
        min=1,
        help="Worker processes of a Dask LocalCluster evaluating genomes in parallel "
        "(1: in this process).",
    ),
]
SchedulerOption = Annotated[
    str | None,
    typer.Option(
        envvar="MRAGENT_DASK_SCHEDULER",
        show_envvar=True,
        help="Evaluate on an existing Dask cluster: its scheduler's address, tcp://HOST:PORT. "
        "Its workers need mragent installed and must reach --db (not the loopback-only "
        "embedded FalkorDB of another machine).",
    ),
]
OutOption = Annotated[Path, typer.Option("--out", help="Directory for reports and the checkpoint.")]
ResumeOption = Annotated[
    bool, typer.Option("--resume", help="Continue from the checkpoint in --out.")
]
CompareOption = Annotated[
    bool,
    typer.Option(
        "--compare",
        help="Also run random search and Optuna's TPE and NSGA-II samplers at NSGA-II's "
        "evaluation budget, over --compare-seeds seeds; writes compare.png and a table.",
    ),
]
CompareSeedsOption = Annotated[
    int, typer.Option(min=1, help="Seeds --compare runs each method with (--seed, --seed+1, ...).")
]
OptunaStorageOption = Annotated[
    str | None,
    typer.Option(
        help="Export the archive as an Optuna study to this storage, e.g. sqlite:///evolve.db "
        "(for optuna-dashboard and optuna.visualization); a study of the same name is replaced.",
    ),
]
ObjectiveOption = Annotated[
    Objective,
    typer.Option(
        case_sensitive=False,
        help="What the search maximises: accuracy, or recall (support recall@5 and "
        "accuracy; needs gold supporting passages). auto: recall for --dataset "
        "musique|hotpotqa, accuracy otherwise.",
    ),
]
GenesOption = Annotated[
    GeneSet,
    typer.Option(
        "--genes",
        case_sensitive=False,
        help="Genes the search varies: core (the ten pipeline genes) or extended (also "
        "the blend weights of passage relevance, bridge evidence and graph score).",
    ),
]
MaxDepthOption = Annotated[
    int | None,
    typer.Option(
        min=int(_DEPTH.low or 1),
        max=int(_DEPTH.high or 4),
        help="Search traversalDepth only up to this value (deep traversals are slow on "
        "large graphs). Preset seeds are clamped into the range.",
    ),
]
TimeCapOption = Annotated[
    float | None,
    typer.Option(
        min=0.001,
        help="Seconds a genome may spend on all training questions; a slower genome is "
        "stopped and marked dominated. Makes the archive depend on machine speed.",
    ),
]
SelectionOption = Annotated[
    Selection,
    typer.Option(
        case_sensitive=False,
        help="Survivor selection in DEAP's loop: nsga2 (crowding distance) or nsga3 "
        "(reference points, for four and five objectives).",
    ),
]
ScreenOption = Annotated[
    float | None,
    typer.Option(
        "--screen",
        min=0.0,
        max=1.0,
        help="Racing: score each new genome on this seeded share of the training questions "
        "first, and in full only if it could still enter the front (0 or 1: every genome in "
        "full). Default: a third when there are 24 training questions or more.",
    ),
]
RacingMarginOption = Annotated[
    float,
    typer.Option(
        min=0.0,
        help="Racing: the quality lead (a share; 0.05 = 5 points) by which a fully scored "
        "genome that costs no more rules a screened one out.",
    ),
]
UnanswerableOption = Annotated[
    int,
    typer.Option(
        "--unanswerable",
        min=0,
        help="Unanswerable variants to build (an answerable question asked of the memory "
        "without one of its supporting passages), half on each side of the split. With some, "
        "abstention on them becomes an objective, and at most 10% false abstention on the "
        "answerable questions a constraint (a genome over it is dominated). 0: none.",
    ),
]
TpeOption = Annotated[
    int | None,
    typer.Option(
        "--tpe",
        min=0,
        help="Genomes Optuna's TPE, fitted on the whole archive, proposes each generation "
        "beside DEAP's offspring (DEAP's selection still decides who survives). Default: "
        "half the population; 0: DEAP's variation alone.",
    ),
]
ExperimentOption = Annotated[
    Path | None,
    typer.Option(
        "--experiment",
        exists=False,
        help="Run an experiment file (evolution/<name>.toml: data, embedder, engine, genes "
        "and ranges, objectives, population, generations, seeds, racing, comparison); "
        "results go to results/<name>/ beside it unless --out is given. The file's "
        "settings cannot be combined with the options they replace.",
    ),
]
BaselineOption = Annotated[
    str | None,
    typer.Option(
        "--baseline",
        metavar="GENOME",
        help="The genome the search starts from and the gate judges against: a preset "
        "name (mragent genome list) or a genome or report JSON file. Default: the "
        "namespace's default (real-model on a real model's vectors, else default).",
    ),
]
PresetSeedsOption = Annotated[
    bool,
    typer.Option(
        "--preset-seeds/--no-preset-seeds",
        help="Seed the first generation with the other presets beside the baseline "
        "(--no-preset-seeds: the baseline and random genomes only, so nothing tuned "
        "elsewhere enters the search).",
    ),
]
RetimeRepeatsOption = Annotated[
    int,
    typer.Option(
        min=1,
        help="Repeats of the interleaved latency re-timing of a work-only claim "
        "(6 or more for a 95% confidence interval).",
    ),
]
