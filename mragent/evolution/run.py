"""One ``mragent evolve`` run: split, search, gate, held-out check, reports.

The command line is a thin shell over :func:`run_evolve`; everything a run
decides lives here, so tests drive it directly against a real store.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mragent.apps.bench import ensure_ingested
from mragent.apps.unanswerable import Variant, sample_variants, variant_namespace, without_removed
from mragent.core.corpus import Corpus, Question
from mragent.core.embedding import Embedder
from mragent.core.errors import ConfigError
from mragent.core.genome import (
    GENE_SETS,
    PRESETS,
    GeneSet,
    GeneSpec,
    Genome,
    load_genome,
    narrowed_genes,
)
from mragent.core.store.base import GraphStore
from mragent.evolution.checkpoint import checkpoint_path, load_checkpoint, save_checkpoint
from mragent.evolution.compare import Comparison, compare_searches
from mragent.evolution.evaluator import EvaluationPolicy, Evaluator, Unanswerable
from mragent.evolution.fidelity import DEFAULT_MARGIN, Racing
from mragent.evolution.gate import WORK, GateResult, claims, gate_holds, judge
from mragent.evolution.latency import RETIME_REPEATS, LatencyCheck, retime
from mragent.evolution.objectives import ABSTENTION, ACCURACY, RECALL, objectives_named
from mragent.evolution.proposer import MutationProposer
from mragent.evolution.split import DEFAULT_SPLIT, split_questions
from mragent.evolution.study import NSGA2, SELECTIONS, Study
from mragent.evolution.tpe_proposer import TpeProposer
from mragent.evolution.trial import Evaluation, Trial
from mragent.memory.principal import BENCH, Principal
from mragent.memory.reader import MemoryReader

EXIT_GATE_FAILED = 3
DEFAULT_POPULATION = 16
DEFAULT_GENERATIONS = 6
"""With the default population and TPE proposals: 160 genomes on the reference corpus."""
DEFAULT_COMPARE_SEEDS = 5


@dataclass(frozen=True)
class EvolveOptions:
    """What a run is asked to do (the CLI's options, validated).

    Attributes:
        corpus_path: The corpus file (hashed into the report and checkpoint).
        ns: The namespace holding the ingested corpus.
        worker_url: Database URL cluster workers open (needed for parallel evaluation).
        generations: Generations after the initial population.
        population: Individuals per generation.
        seed: Seeds the search, the split and the compared searches.
        split: Held-out fraction or comma-separated question ids.
        workers: Worker processes of a Dask LocalCluster (1: evaluate in this process).
        scheduler: Address of an existing Dask cluster's scheduler (``tcp://HOST:PORT``).
        out_dir: Where reports and the checkpoint go.
        resume: Continue from ``out_dir``'s checkpoint.
        compare: Also run random search and Optuna's TPE and NSGA-II at the
            same budget, over ``compare_seeds`` seeds.
        compare_seeds: Seeds compared (``seed``, ``seed + 1``, ...).
        retime_repeats: Repeats of the interleaved latency re-timing.
        objective: ``accuracy`` or ``recall`` (support recall@5 and accuracy;
            needs questions with gold supporting passages).
        gene_set: The genes the search varies (``core``: the ten pipeline genes;
            ``extended``: those and the blend weights).
        gene_ranges: ``(gene, low, high)`` narrowing the search's gene ranges
            (e.g. bounding ``traversalDepth`` on a large graph).
        time_cap_s: Per-genome wall-time cap over the training questions; a
            genome over it is marked timed out and dominated (None: no cap).
        optuna_storage: Optuna storage URL the archive is exported to (None: no export).
        selection: ``nsga2`` or ``nsga3`` (DEAP's reference-point selection).
        screen_share: Share of the training questions a new genome is screened
            on before its full evaluation (None: every genome in full;
            :mod:`mragent.evolution.fidelity`).
        racing_margin: Quality lead by which a full-fidelity genome rules a
            screened one out.
        tpe_proposals: Genomes Optuna's TPE, fitted on the archive, proposes each
            generation beside DEAP's offspring (0: none;
            :mod:`mragent.evolution.tpe_proposer`).
        unanswerable: Unanswerable variants built (0: none): answerable questions
            asked of a memory without one of their supporting passages, half from
            the training side and half from the held-out side
            (:mod:`mragent.apps.unanswerable`). With some, abstention on them is an
            objective and false abstention on the answerable ones a constraint
            (:attr:`objective_set`).
        baseline: The genome the search starts from and the gate judges against: a
            preset name or a genome or report file (None: the namespace's default).
        preset_seeds: Whether the other presets seed the first generation beside
            the baseline (False: the baseline and random genomes only).
    """

    corpus_path: Path
    ns: str
    worker_url: str | None = None
    generations: int = DEFAULT_GENERATIONS
    population: int = DEFAULT_POPULATION
    seed: int = 0
    split: str = DEFAULT_SPLIT
    workers: int = 1
    scheduler: str | None = None
    out_dir: Path = Path("mragent-evolve")
    resume: bool = False
    compare: bool = False
    compare_seeds: int = DEFAULT_COMPARE_SEEDS
    retime_repeats: int = RETIME_REPEATS
    objective: str = ACCURACY.name
    gene_set: GeneSet = GeneSet.CORE
    gene_ranges: tuple[tuple[str, float, float], ...] = ()
    time_cap_s: float | None = None
    optuna_storage: str | None = None
    selection: str = NSGA2
    screen_share: float | None = None
    racing_margin: float = DEFAULT_MARGIN
    tpe_proposals: int = 0
    unanswerable: int = 0
    baseline: str | None = None
    preset_seeds: bool = True

    def __post_init__(self) -> None:
        if self.unanswerable < 0:
            raise ValueError(f"unanswerable must be >= 0, got {self.unanswerable}")
        if self.generations < 0:
            raise ValueError(f"generations must be >= 0, got {self.generations}")
        if self.population < 4:
            raise ValueError(f"population must be >= 4, got {self.population}")
        if self.workers < 1:
            raise ValueError(f"workers must be >= 1, got {self.workers}")
        if self.tpe_proposals < 0:
            raise ValueError(f"tpe_proposals must be >= 0, got {self.tpe_proposals}")
        if self.compare_seeds < 1:
            raise ValueError(f"compare_seeds must be >= 1, got {self.compare_seeds}")
        if self.retime_repeats < 1:
            raise ValueError(f"retime_repeats must be >= 1, got {self.retime_repeats}")
        if self.time_cap_s is not None and self.time_cap_s <= 0:
            raise ValueError(f"time_cap_s must be positive, got {self.time_cap_s}")
        objectives_named(self.objective)  # ConfigError on an unknown name
        self.genes()  # ConfigError on a bad range
        if self.selection not in SELECTIONS:
            raise ConfigError(
                f"unknown selection {self.selection!r} (one of {', '.join(SELECTIONS)})"
            )
        self.racing()  # ValueError on a bad share or margin
        if self.baseline is not None:
            load_genome(self.baseline)  # ConfigError naming the preset or file

    @property
    def objective_set(self) -> str:
        """The objective set searched: :attr:`objective`, plus abstention with variants."""
        return f"{self.objective}+{ABSTENTION}" if self.unanswerable else self.objective

    def baseline_genome(self, namespace_default: Genome) -> Genome:
        """The baseline genome: :attr:`baseline` loaded, else ``namespace_default``."""
        return namespace_default if self.baseline is None else load_genome(self.baseline)

    @property
    def baseline_label(self) -> str:
        """The baseline as reports name it: a preset's name, a file's name, or the
        namespace's default."""
        if self.baseline is None:
            return "the namespace's default"
        return self.baseline if self.baseline in PRESETS else Path(self.baseline).name

    def racing(self) -> Racing | None:
        """The screening rule (None: every genome is evaluated in full)."""
        if self.screen_share is None:
            return None
        return Racing(self.screen_share, self.racing_margin)

    def genes(self) -> tuple[GeneSpec, ...]:
        """The gene specs the search stays in (the gene set's, narrowed by ``gene_ranges``)."""
        ranges = {name: (low, high) for name, low, high in self.gene_ranges}
        return narrowed_genes(ranges, GENE_SETS[self.gene_set])


@dataclass
class HeldOut:
    """Baseline and chosen variant on the questions the search never saw."""

    questions: list[Question]
    baseline: Evaluation
    variant: Evaluation
    latency: LatencyCheck | None
    holds: bool
    claims: list[str]


@dataclass
class EvolveRun:
    """Everything a run produced; the reports are rendered from this."""

    options: EvolveOptions
    study: Study
    train: list[Question]
    held_out: HeldOut | None
    gate: GateResult
    comparison: Comparison | None = None
    engine: str = ""
    engine_version: str = ""
    corpus_sha256: str = ""
    elapsed_s: float = 0.0

    @property
    def chosen(self) -> Trial:
        """The gate's winner, or the best-scoring trial when the gate failed."""
        return self.gate.winner or self.study.best_trial

    @property
    def baseline_name(self) -> str:
        """The baseline's preset name when it is one (e.g. the namespace's default),
        else its file's name."""
        genome = self.study.baseline
        named = next((name for name, preset in PRESETS.items() if preset == genome), None)
        return named or self.options.baseline_label

    @property
    def exit_code(self) -> int:
        """0 when the gate passed, :data:`EXIT_GATE_FAILED` when the baseline stands."""
        return 0 if self.gate.passed else EXIT_GATE_FAILED


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fingerprint(
    options: EvolveOptions, sha: str, train: list[Question], baseline: Genome
) -> dict[str, object]:
    """What a checkpoint must match to be resumed by this run (``baseline``: the
    genome it starts from)."""
    ids = "\n".join(q.id for q in train).encode()
    stamp: dict[str, object] = {
        "seed": options.seed,
        "population": options.population,
        "corpus_sha256": sha,
        "namespace": options.ns,
        "train_sha256": hashlib.sha256(ids).hexdigest(),
    }
    # Recorded only when set, so checkpoints of accuracy runs stay resumable as before.
    if options.objective != ACCURACY.name:
        stamp["objective"] = options.objective
    if options.gene_set is not GeneSet.CORE:
        stamp["genes"] = options.gene_set.value
    if options.gene_ranges:
        stamp["gene_ranges"] = [list(item) for item in options.gene_ranges]
    if options.selection != NSGA2:
        stamp["selection"] = options.selection
    racing = options.racing()
    if racing is not None:
        stamp["racing"] = [racing.share, racing.margin]
    if options.tpe_proposals:
        stamp["tpe_proposals"] = options.tpe_proposals
    if options.unanswerable:
        stamp["unanswerable"] = options.unanswerable
    if options.baseline is not None:
        stamp["baseline"] = baseline.to_json_dict()
    if not options.preset_seeds:
        stamp["preset_seeds"] = False
    return stamp


def run_evolve(
    store: GraphStore,
    corpus: Corpus,
    options: EvolveOptions,
    *,
    proposer: MutationProposer | None = None,
    on_generation: Callable[[Study], None] | None = None,
    on_trial: Callable[[Trial], None] | None = None,
    on_evaluated: Callable[[Genome, Evaluation], None] | None = None,
    on_phase: Callable[[str], None] | None = None,
    writer: Principal = BENCH,
    embedder: Embedder | None = None,
) -> EvolveRun:
    """Search, gate and check on held-out questions (reports are written by the caller).

    A checkpoint is written to ``options.out_dir`` after every generation, so an
    interrupted run (``KeyboardInterrupt`` propagates) resumes exactly.

    Args:
        store: The open store holding the ingested corpus.
        corpus: The corpus (its questions are split into training and held-out).
        options: What to run.
        proposer: Optional external genome proposer.
        on_generation: Called after each completed generation of the study.
        on_trial: Called with each trial entering the study's archive.
        on_evaluated: Called with each genome evaluated (any search, not cached).
        on_phase: Told what the run is doing, in words.
        writer: Who writes the unanswerable variants' namespace, if it is new.
        embedder: The namespace's embedder (default: the stamped one), e.g. wrapped
            in the on-disk cache, so the variants' memory and the questions reuse
            vectors embedded before.

    Raises:
        ConfigError: on a bad split, a checkpoint from another run, or the
            recall objective without gold supporting passages.
        CheckpointError: on a corrupt checkpoint (moved aside).
    """
    started = time.perf_counter()
    phase = on_phase or (lambda _message: None)
    train, held = _split(corpus, options)
    sha = file_sha256(options.corpus_path)
    memory = MemoryReader(store, options.ns, embedder=embedder)
    # The namespace's own default (``real-model`` on a real model's vectors) unless asked.
    baseline = options.baseline_genome(memory.default_genome)
    variants: tuple[Unanswerable | None, Unanswerable | None] = (None, None)
    if options.unanswerable:
        phase(f"the memory without the passages of {options.unanswerable} unanswerable variants")
        variants = _variants(store, memory, corpus, (train, held), options, writer)
    study, comparison, earlier_s = _search(
        memory,
        baseline,
        train,
        options,
        variants[0],
        stamp=fingerprint(options, sha, train, baseline),
        started=started,
        phase=phase,
        proposer=proposer,
        hooks=(on_generation, on_trial, on_evaluated),
    )
    phase("acceptance gate (re-timing work-only claims)")
    gate = judge(
        study.trials,
        study.baseline_trial,
        lambda genome: retime(memory, train, baseline, genome, repeats=options.retime_repeats),
    )
    run = EvolveRun(options, study, train, None, gate, comparison)
    if held:
        phase("held-out questions")
        run.held_out = _held_out(memory, held, baseline, run.chosen.genome, options, variants[1])
    caps = store.capabilities
    run.engine, run.engine_version, run.corpus_sha256 = caps.engine, caps.version, sha
    run.elapsed_s = earlier_s + time.perf_counter() - started
    return run


def _variants(
    store: GraphStore,
    memory: MemoryReader,
    corpus: Corpus,
    split: tuple[list[Question], list[Question]],
    options: EvolveOptions,
    writer: Principal,
) -> tuple[Unanswerable, Unanswerable]:
    """The unanswerable variants of each side of the split, and their memory (ingested
    unless it exists: its name is derived from the passages it lacks)."""
    drawn = sample_variants(*split, options.unanswerable, options.seed)
    ns = variant_namespace(options.ns, drawn)
    ensure_ingested(store, without_removed(corpus, drawn), ns, memory.embedder, principal=writer)
    train_ids = {q.id for q in split[0]}

    def side(chosen: list[Variant]) -> Unanswerable:
        return Unanswerable(tuple(v.question for v in chosen), ns)

    return (
        side([v for v in drawn if v.original.id in train_ids]),
        side([v for v in drawn if v.original.id not in train_ids]),
    )


def _search(
    memory: MemoryReader,
    baseline: Genome,
    train: list[Question],
    options: EvolveOptions,
    unanswerable: Unanswerable | None,
    *,
    stamp: dict[str, object],
    started: float,
    phase: Callable[[str], None],
    proposer: MutationProposer | None,
    hooks: tuple[
        Callable[[Study], None] | None,
        Callable[[Trial], None] | None,
        Callable[[Genome, Evaluation], None] | None,
    ],
) -> tuple[Study, Comparison | None, float]:
    """NSGA-II (resumed from the checkpoint when asked), then the comparison if asked.

    Returns:
        The study, the comparison (None unless ``compare``) and the wall time
        of the sessions before a ``--resume``.
    """
    on_generation, on_trial, on_evaluated = hooks
    earlier_s = 0.0
    ckpt = checkpoint_path(options.out_dir)
    racing = options.racing()
    phase(f"embedding {len(train)} training questions (once for the run)")
    with Evaluator(
        memory,
        train,
        db_url=options.worker_url,
        workers=options.workers,
        scheduler=options.scheduler,
        on_evaluated=on_evaluated,
        policy=EvaluationPolicy(options.objective_set, options.time_cap_s),
        screening=_screening(racing, train, unanswerable, options.seed),
        unanswerable=unanswerable,
    ) as evaluator:
        study = new_study(evaluator, options, options.seed, baseline, proposer, on_trial)
        if options.resume:
            earlier_s = load_checkpoint(ckpt, study, stamp)
            evaluator.cache.update({t.genome: t.evaluation for t in study.full_trials})
            phase(f"resumed at generation {study.generation} ({len(study.trials)} evaluated)")

        def after_generation(current: Study) -> None:
            save_checkpoint(ckpt, current, stamp, earlier_s + time.perf_counter() - started)
            if on_generation:
                on_generation(current)

        study.optimize(after_generation)
        comparison = None
        if options.compare:
            seeds = [options.seed + i for i in range(options.compare_seeds)]
            comparison = compare_searches(
                evaluator,
                lambda seed, selection: new_study(
                    evaluator, options, seed, baseline, selection=selection
                ),
                seeds,
                first=study,
                on_phase=phase,
            )
    return study, comparison, earlier_s


def _screening(
    racing: Racing | None, train: list[Question], unanswerable: Unanswerable | None, seed: int
) -> tuple[int, ...]:
    """The screening questions' indices: racing's share of the training questions and
    the same share of the variants (numbered after them), so a screened genome's
    abstention is estimated too."""
    if racing is None:
        return ()
    variants = list(unanswerable.questions) if unanswerable else []
    picked = racing.subset(variants, seed) if variants else ()
    return racing.subset(train, seed) + tuple(len(train) + i for i in picked)


def _split(corpus: Corpus, options: EvolveOptions) -> tuple[list[Question], list[Question]]:
    """Training and held-out questions.

    Raises:
        ConfigError: for the recall objective without gold supporting passages.
    """
    train, held = split_questions(corpus.questions, options.split, options.seed)
    if options.objective == RECALL.name and not any(q.supporting for q in train):
        raise ConfigError(
            "the recall objective needs training questions with gold supporting passages"
        )
    return train, held


def new_study(
    evaluator: Evaluator,
    options: EvolveOptions,
    seed: int,
    baseline: Genome,
    proposer: MutationProposer | None = None,
    on_trial: Callable[[Trial], None] | None = None,
    *,
    selection: str | None = None,
) -> Study:
    """The (not yet run) study a run makes: ``baseline``, the other presets as seeds
    (unless the options leave them out), the run's selection (or ``selection``), racing rule and TPE
    proposals (an explicit ``proposer`` replaces TPE's)."""
    objectives = objectives_named(options.objective_set)
    proposals = 2 if proposer is not None else options.tpe_proposals
    if proposer is None and options.tpe_proposals:
        proposer = TpeProposer(objectives, options.genes())
    return Study(
        evaluator,
        population=options.population,
        generations=options.generations,
        seed=seed,
        baseline=baseline,
        seeds=[g for g in PRESETS.values() if g != baseline] if options.preset_seeds else [],
        proposer=proposer,
        proposals=proposals,
        objectives=objectives,
        genes=options.genes(),
        on_trial=on_trial,
        selection=selection or options.selection,
        racing=options.racing(),
    )


def _held_out(
    memory: MemoryReader,
    held: list[Question],
    baseline: Genome,
    variant: Genome,
    options: EvolveOptions,
    unanswerable: Unanswerable | None,
) -> HeldOut:
    """Baseline and variant on the held-out questions, judged by the gate's rule.

    Held-out latency is re-timed only when the claim there rests on work alone, and
    it is reported, not judged: held-out questions are few, so their re-timing is
    noisy, and a verdict that a measurement could flip between identical runs
    would not be a verdict.
    """
    # Held-out figures are what the report claims, so they are never time-capped.
    policy = EvaluationPolicy(options.objective_set)
    evaluator = Evaluator(memory, held, policy=policy, unanswerable=unanswerable)
    base_eval, variant_eval = evaluator([baseline, variant])
    latency = None
    if variant != baseline and claims(base_eval, variant_eval) == [WORK]:
        latency = retime(memory, held, baseline, variant, repeats=options.retime_repeats)
    holds, found = gate_holds(base_eval, variant_eval, None)
    return HeldOut(held, base_eval, variant_eval, latency, holds, found)
