"""``mragent evolve``: NSGA-II over the genome, gated against the default genome."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from mragent.cli.common import (
    DbOption,
    EmbedderOption,
    JsonOption,
    chosen_embedder,
    cli_errors,
    console,
    embedder_namespace,
    emit_json,
    say,
)
from mragent.cli.evolve_options import (
    EXIT_INTERRUPTED,
    BaselineOption,
    CompareOption,
    CompareSeedsOption,
    ExperimentOption,
    GenerationsOption,
    GenesOption,
    MaxDepthOption,
    Objective,
    ObjectiveOption,
    OptunaStorageOption,
    OutOption,
    PopulationOption,
    PresetSeedsOption,
    RacingMarginOption,
    ResumeOption,
    RetimeRepeatsOption,
    SchedulerOption,
    ScreenOption,
    SeedOption,
    Selection,
    SelectionOption,
    SplitOption,
    TimeCapOption,
    TpeOption,
    UnanswerableOption,
    WorkersOption,
    depth_range,
    objective_for,
    screen_share_for,
)
from mragent.cli.identity import corpus_writer, granted_view
from mragent.cli.questions import (
    CorpusNsOption,
    CorpusOption,
    Dataset,
    DatasetOption,
    PathOption,
    ingest_if_empty,
    load_questions,
)
from mragent.core.embedding.cache import cached
from mragent.core.errors import ConfigError
from mragent.core.genome import GeneSet, load_genome
from mragent.core.store import open_store
from mragent.core.view import ReadView
from mragent.evolution.checkpoint import checkpoint_path
from mragent.evolution.experiment import Experiment, load_experiment
from mragent.evolution.fidelity import DEFAULT_MARGIN
from mragent.evolution.gate import ACCURACY_GAIN, LATENCY_GAIN
from mragent.evolution.latency import RETIME_REPEATS, VETO_RATIO
from mragent.evolution.objectives import RECALL_METRIC
from mragent.evolution.report import write_reports
from mragent.evolution.run import (
    DEFAULT_COMPARE_SEEDS,
    DEFAULT_GENERATIONS,
    DEFAULT_POPULATION,
    EvolveOptions,
    run_evolve,
)
from mragent.evolution.split import split_questions
from mragent.evolution.tpe_proposer import default_proposals

if TYPE_CHECKING:
    from mragent.core.corpus import Corpus
    from mragent.core.embedding import Embedder
    from mragent.core.genome import Genome
    from mragent.core.store.base import GraphStore
    from mragent.evolution.run import EvolveRun
    from mragent.evolution.study import Study
    from mragent.evolution.trial import Evaluation, Trial
    from mragent.memory.principal import Principal


def evolve_command(
    ctx: typer.Context,
    corpus: CorpusOption = None,
    dataset: DatasetOption = None,
    path: PathOption = None,
    db: DbOption = None,
    ns: CorpusNsOption = None,
    generations: GenerationsOption = DEFAULT_GENERATIONS,
    population: PopulationOption = DEFAULT_POPULATION,
    seed: SeedOption = 0,
    split: SplitOption = "0.3",
    workers: WorkersOption = 1,
    scheduler: SchedulerOption = None,
    out_dir: OutOption = Path("mragent-evolve"),
    resume: ResumeOption = False,
    compare: CompareOption = False,
    compare_seeds: CompareSeedsOption = DEFAULT_COMPARE_SEEDS,
    objective: ObjectiveOption = Objective.AUTO,
    genes: GenesOption = GeneSet.CORE,
    max_depth: MaxDepthOption = None,
    time_cap: TimeCapOption = None,
    retime_repeats: RetimeRepeatsOption = RETIME_REPEATS,
    optuna_storage: OptunaStorageOption = None,
    selection: SelectionOption = Selection.NSGA2,
    screen: ScreenOption = None,
    racing_margin: RacingMarginOption = DEFAULT_MARGIN,
    tpe: TpeOption = None,
    unanswerable: UnanswerableOption = 0,
    baseline: BaselineOption = None,
    preset_seeds: PresetSeedsOption = True,
    experiment: ExperimentOption = None,
    as_json: JsonOption = False,
    embedder: EmbedderOption = None,
) -> None:
    """Evolve the retrieval genome (DEAP: NSGA-II with TPE proposals) and gate the winner.

    Objectives: accuracy (max) or, with --objective recall, support recall@5 and
    accuracy (max); then cost = deterministic work (min), context tokens (min),
    hops (min). The winner is the highest-scoring genome of the whole archive
    that keeps its training quality objectives and gains {gain:g} points in one of
    them or cuts work {work:g}%; a work-only claim is re-timed against the baseline
    and vetoed only when the confidence interval of the latency ratio (variant
    over baseline) lies wholly above {veto:.2f} (an unclear measurement leaves
    the decision as it is). Writes optimize.report.json, optimize.report.md and
    pareto.png to --out; a checkpoint after every generation (--resume).

    Exit codes: 0 the gate passed; 3 no variant passed (the baseline stands);
    2 bad input or a corrupt checkpoint (moved aside); 1 database failure;
    130 interrupted (continue with --resume). --json prints optimize.report.json.
    """
    with cli_errors():
        if experiment is not None:
            exp = load_experiment(experiment)
            _refuse_overridden(ctx, exp)
            dataset = Dataset(exp.dataset) if exp.dataset else None
            path, corpus = (exp.data_path, exp.pool) if exp.dataset else (None, exp.data_path)
            db = exp.db or db
            embedder, split, seed = exp.embedder, exp.split, exp.seed
            population, generations, workers = exp.population, exp.generations, exp.workers
            objective, genes, selection = (
                Objective(exp.objective),
                exp.gene_set,
                Selection(exp.selection),
            )
            screen = exp.screen_share
            racing_margin, compare, compare_seeds = (
                exp.racing_margin,
                exp.compare,
                exp.compare_seeds,
            )
            time_cap, tpe, unanswerable = exp.time_cap_s, exp.tpe_proposals, exp.unanswerable
            baseline, preset_seeds = exp.baseline, exp.preset_seeds
            retime_repeats = exp.retime_repeats or retime_repeats
            if not _given(ctx, "out_dir"):
                out_dir = exp.results_dir
        if baseline is not None:
            _check_baseline(baseline)
        granted_view(None, ReadView())  # the caller reads the shared scope
        who = corpus_writer(None)
        chosen_objective = objective_for(objective, dataset.value if dataset else None)
        data, namespace, path = _questions(dataset, path, corpus, ns)
        model = cached(chosen_embedder(embedder))
        namespace = embedder_namespace(namespace, ns, model)
        with open_store(db) as store:
            ingest_if_empty(store, data, namespace, model, who)
            _note_fresh_start(out_dir, resume)
            options = EvolveOptions(
                corpus_path=path,
                ns=namespace,
                worker_url=db or store.secret_url,
                generations=generations,
                population=population,
                seed=seed,
                split=split,
                workers=workers,
                scheduler=scheduler,
                out_dir=out_dir,
                resume=resume,
                compare=compare,
                compare_seeds=compare_seeds,
                objective=chosen_objective,
                gene_set=genes,
                gene_ranges=exp.gene_ranges if experiment is not None else depth_range(max_depth),
                time_cap_s=time_cap,
                retime_repeats=retime_repeats,
                optuna_storage=optuna_storage,
                selection=selection.value,
                screen_share=screen_share_for(screen, _train_count(data, split, seed)),
                racing_margin=racing_margin,
                tpe_proposals=default_proposals(population) if tpe is None else tpe,
                unanswerable=unanswerable,
                baseline=baseline,
                preset_seeds=preset_seeds,
            )
            run = _run_with_progress(store, data, options, who, model)
        # An experiment on a public dataset publishes no text of it (answers, pages).
        paths = write_reports(run, publish=experiment is not None and dataset is not None)
    if as_json:
        emit_json(json.loads(paths[0].read_text(encoding="utf-8")))
    else:
        _print_summary(run, paths)
    raise typer.Exit(code=run.exit_code)


# The help states the gate's thresholds from the constants the gate decides with, so
# the two cannot drift apart.
evolve_command.__doc__ = (evolve_command.__doc__ or "").format(
    gain=ACCURACY_GAIN * 100, work=LATENCY_GAIN * 100, veto=VETO_RATIO
)


_EXPERIMENT_SETS = (
    "corpus", "dataset", "path", "db", "generations", "population", "seed", "split",
    "workers", "compare", "compare_seeds", "objective", "genes", "max_depth", "time_cap",
    "retime_repeats", "selection", "screen", "racing_margin", "embedder", "tpe",
    "unanswerable", "baseline", "preset_seeds",
)  # fmt: skip
"""The options an experiment file replaces."""


def _given(ctx: typer.Context, name: str) -> bool:
    """Whether the option ``name`` was given on the command line (an environment
    variable is ambient, not a choice made for this run)."""
    # By name: typer may carry its own copy of click, whose enum is not click's.
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"


def _refuse_overridden(ctx: typer.Context, exp: Experiment) -> None:
    """Refuse an option an experiment file already sets (the file is the record of the run).

    Raises:
        ConfigError: naming the option and the file.
    """
    clash = [name for name in _EXPERIMENT_SETS if _given(ctx, name)]
    if clash:
        option = "--" + clash[0].replace("_", "-")
        raise ConfigError(f"{option}: set by the experiment {exp.path}; edit the file instead")


def _check_baseline(spec: str) -> None:
    """Fail on a baseline that is no genome before anything is ingested.

    Raises:
        ConfigError: naming ``--baseline``.
    """
    try:
        load_genome(spec)
    except ConfigError as exc:
        raise ConfigError(f"--baseline: {exc}") from None


def _train_count(data: Corpus, split: str, seed: int) -> int:
    """How many training questions the split leaves (racing's default depends on it)."""
    train, _ = split_questions(data.questions, split, seed)
    return len(train)


def _questions(
    dataset: Dataset | None, path: Path | None, corpus: Path | None, ns: str | None
) -> tuple[Corpus, str, Path]:
    """The question set: a public dataset with its pooled corpus, or a project-format corpus."""
    return load_questions(dataset and dataset.value, path, corpus, ns, "evolve against")


def _note_fresh_start(out_dir: Path, resume: bool) -> None:
    """Say that a checkpoint left in ``out_dir`` is about to be replaced, if there is one."""
    if not resume and checkpoint_path(out_dir).exists():
        console.print(
            f"note: starting afresh; {checkpoint_path(out_dir)} will be replaced "
            "(--resume continues it instead)",
            highlight=False,
        )


def _run_with_progress(
    store: GraphStore,
    data: Corpus,
    options: EvolveOptions,
    writer: Principal,
    embedder: Embedder | None,
) -> EvolveRun:
    """:func:`run_evolve` under a progress bar, one line per evaluated genome.

    Raises:
        typer.Exit: with :data:`EXIT_INTERRUPTED` on Ctrl-C (the checkpoint stays).
    """
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[status]}"),
        TimeElapsedColumn(),
    )
    generations = options.generations
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("generations", total=generations + 1, status="")
        evaluated = [0]

        def on_evaluated(genome: Genome, evaluation: Evaluation) -> None:
            evaluated[0] += 1
            progress.update(task, status=f"{evaluated[0]} evaluated")

        def on_trial(trial: Trial) -> None:
            # One line per trial: the bar alone says nothing in a log file.
            progress.console.print(_trial_line(trial), highlight=False)

        def on_generation(study: Study) -> None:
            progress.update(
                task,
                completed=study.generation + 1,
                description=f"gen {study.generation}/{generations} "
                f"best so far {study.best_trial.score:.3f}",
            )

        def on_phase(message: str) -> None:
            progress.update(task, status=message)

        try:
            return run_evolve(
                store,
                data,
                options,
                on_generation=on_generation,
                on_trial=on_trial,
                on_evaluated=on_evaluated,
                on_phase=on_phase,
                writer=writer,
                embedder=embedder,
            )
        except KeyboardInterrupt:
            progress.stop()
            console.print(
                f"interrupted: the last completed generation is saved in "
                f"{checkpoint_path(options.out_dir)}; continue with --resume",
                highlight=False,
            )
            raise typer.Exit(code=EXIT_INTERRUPTED) from None


def _trial_line(trial: Trial) -> str:
    """A trial as the terminal shows it, numbered as in every report (#0: the baseline)."""
    e, genome = trial.evaluation, trial.genome
    recall = f"R@5 {100 * e.metric(RECALL_METRIC):.1f} " if e.recall else ""
    if e.false_abstention is not None:
        shown = "-" if e.abstention is None else f"{100 * e.abstention:.0f}"
        recall += f"abstained {shown}% false {100 * e.false_abstention:.0f}% "
    late = " TIMED OUT (dominated)" if e.timed_out else ""
    if not e.timed_out and e.fidelity < 1.0:
        late = f" screened on {e.questions} questions (not promoted)"
    elif not e.feasible:
        late = " over the false-abstention bound (dominated)"
    return (
        f"#{trial.number} gen {trial.generation}: {recall}acc {100 * e.accuracy:.1f} "
        f"work {e.work:.0f} p50 {e.latency_p50_ms:.0f} ms depth {genome.traversalDepth} "
        f"fanout {genome.tagFanout} cueK {genome.cueK}{late}"
    )


def _print_summary(run: EvolveRun, paths: list[Path]) -> None:
    gate, study, held = run.gate, run.study, run.held_out
    base, chosen = study.baseline_trial, run.chosen
    if gate.passed:
        say(
            f"gate passed on {' and '.join(gate.claims)}: trial #{chosen.number} "
            f"accuracy {100 * base.evaluation.accuracy:.1f} -> "
            f"{100 * chosen.evaluation.accuracy:.1f}, work {base.evaluation.work:.0f} -> "
            f"{chosen.evaluation.work:.0f}, score {base.score:.3f} -> {chosen.score:.3f}"
        )
    else:
        say(
            f"gate not passed: the baseline stands (best found: trial #{chosen.number}, "
            f"score {chosen.score:.3f} vs baseline {base.score:.3f})"
        )
    if held:
        recall = "".join(
            f"R@{k} {100 * held.baseline.recall_at(k):.1f} -> "
            f"{100 * held.variant.recall_at(k):.1f}; "
            for k, _ in held.variant.recall
        )
        say(
            f"held-out ({len(held.questions)} questions): {recall}accuracy "
            f"{100 * held.baseline.accuracy:.1f} -> {100 * held.variant.accuracy:.1f}; "
            f"gate {'holds' if held.holds else 'does not hold'} on held-out"
        )
    say(f"{len(study.trials)} genomes in {run.elapsed_s:.1f} s; wrote {', '.join(map(str, paths))}")
