"""One ``mragent evolve`` run: split, search, gate, held-out check, reports.

The command line is a thin shell over :func:`run_evolve`; everything a run
decides lives here, so tests drive it directly against a real store.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from evolution.checkpoint import checkpoint_path, load_checkpoint, save_checkpoint
from evolution.evaluator import Evaluator
from evolution.gate import GateResult, LatencyCheck, gate_holds, judge, retime
from evolution.proposer import MutationProposer
from evolution.random_search import random_search
from evolution.split import DEFAULT_SPLIT, split_questions
from evolution.study import Study
from evolution.trial import Evaluation, Trial
from mragent.corpus import Corpus, Question
from mragent.genome import PRESETS, Genome
from mragent.memory import Memory
from mragent.store.base import GraphStore

EXIT_GATE_FAILED = 3
DEFAULT_POPULATION = 16
DEFAULT_GENERATIONS = 6
"""With the default population, about 30 s on the reference corpus on 2 cores."""


@dataclass(frozen=True)
class EvolveOptions:
    """What a run is asked to do (the CLI's options, validated).

    Attributes:
        corpus_path: The corpus file (hashed into the report and checkpoint).
        ns: The namespace holding the ingested corpus.
        worker_url: Database URL pool workers open (needed when ``workers`` > 1).
        generations: Generations after the initial population.
        population: Individuals per generation.
        seed: Seeds the search, the split and random search.
        split: Held-out fraction or comma-separated question ids.
        workers: Parallel evaluation processes.
        out_dir: Where reports and the checkpoint go.
        resume: Continue from ``out_dir``'s checkpoint.
        compare_random: Also run random search with the same budget.
        retime_repeats: Repeats of the interleaved latency re-timing.
    """

    corpus_path: Path
    ns: str
    worker_url: str | None = None
    generations: int = DEFAULT_GENERATIONS
    population: int = DEFAULT_POPULATION
    seed: int = 0
    split: str = DEFAULT_SPLIT
    workers: int = 1
    out_dir: Path = Path("mragent-evolve")
    resume: bool = False
    compare_random: bool = False
    retime_repeats: int = 5

    def __post_init__(self) -> None:
        if self.generations < 0:
            raise ValueError(f"generations must be >= 0, got {self.generations}")
        if self.population < 4:
            raise ValueError(f"population must be >= 4, got {self.population}")
        if self.workers < 1:
            raise ValueError(f"workers must be >= 1, got {self.workers}")
        if self.retime_repeats < 1:
            raise ValueError(f"retime_repeats must be >= 1, got {self.retime_repeats}")


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
    random_trials: list[Trial] = field(default_factory=list)
    engine: str = ""
    engine_version: str = ""
    corpus_sha256: str = ""
    elapsed_s: float = 0.0

    @property
    def chosen(self) -> Trial:
        """The gate's winner, or the best-scoring trial when the gate failed."""
        return self.gate.winner or self.study.best_trial

    @property
    def exit_code(self) -> int:
        """0 when the gate passed, :data:`EXIT_GATE_FAILED` when the baseline stands."""
        return 0 if self.gate.passed else EXIT_GATE_FAILED


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fingerprint(options: EvolveOptions, sha: str, train: list[Question]) -> dict[str, object]:
    """What a checkpoint must match to be resumed by this run."""
    ids = "\n".join(q.id for q in train).encode()
    return {
        "seed": options.seed,
        "population": options.population,
        "corpus_sha256": sha,
        "namespace": options.ns,
        "train_sha256": hashlib.sha256(ids).hexdigest(),
    }


def run_evolve(
    store: GraphStore,
    corpus: Corpus,
    options: EvolveOptions,
    *,
    proposer: MutationProposer | None = None,
    on_generation: Callable[[Study], None] | None = None,
    on_evaluated: Callable[[], None] | None = None,
    on_phase: Callable[[str], None] | None = None,
) -> EvolveRun:
    """Search, gate and check on held-out questions (reports are written by the caller).

    A checkpoint is written to ``options.out_dir`` after every generation, so an
    interrupted run (``KeyboardInterrupt`` propagates) resumes exactly.

    Raises:
        ConfigError: on a bad split or a checkpoint from another run.
        CheckpointError: on a corrupt checkpoint (moved aside).
    """
    started = time.perf_counter()
    phase = on_phase or (lambda _message: None)
    train, held = split_questions(corpus.questions, options.split, options.seed)
    sha = file_sha256(options.corpus_path)
    baseline = PRESETS["default"]
    memory = Memory(store, options.ns)
    ckpt = checkpoint_path(options.out_dir)
    stamp = fingerprint(options, sha, train)
    with Evaluator(
        memory,
        train,
        db_url=options.worker_url,
        workers=options.workers,
        on_evaluated=on_evaluated,
    ) as evaluator:
        study = Study(
            evaluator,
            population=options.population,
            generations=options.generations,
            seed=options.seed,
            baseline=baseline,
            seeds=[g for name, g in PRESETS.items() if name != "default"],
            proposer=proposer,
        )
        if options.resume:
            load_checkpoint(ckpt, study, stamp)
            evaluator.cache.update({t.genome: t.evaluation for t in study.trials})
            phase(f"resumed at generation {study.generation} ({len(study.trials)} evaluated)")

        def after_generation(current: Study) -> None:
            save_checkpoint(ckpt, current, stamp)
            if on_generation:
                on_generation(current)

        study.optimize(after_generation)
        random_trials: list[Trial] = []
        if options.compare_random:
            phase("random search with the same budget")
            random_trials = random_search(
                evaluator,
                budget=len(study.trials),
                seed=options.seed,
                baseline=baseline,
                seeds=study.seeds,
                batch=options.population,
            )
    phase("acceptance gate (re-timing latency claims)")
    gate = judge(
        study.trials,
        study.baseline_trial,
        lambda genome: retime(memory, train, baseline, genome, repeats=options.retime_repeats),
    )
    run = EvolveRun(options, study, train, None, gate, random_trials)
    if held:
        phase("held-out questions")
        # Held-out latency is re-timed only when the gate's verdict rests on latency.
        retime_held = "latency" in gate.claims
        run.held_out = _held_out(memory, held, baseline, run.chosen.genome, options, retime_held)
    caps = store.capabilities
    run.engine, run.engine_version, run.corpus_sha256 = caps.engine, caps.version, sha
    run.elapsed_s = time.perf_counter() - started
    return run


def _held_out(
    memory: Memory,
    held: list[Question],
    baseline: Genome,
    variant: Genome,
    options: EvolveOptions,
    with_latency: bool,
) -> HeldOut:
    evaluator = Evaluator(memory, held)
    base_eval, variant_eval = evaluator([baseline, variant])
    latency = (
        retime(memory, held, baseline, variant, repeats=options.retime_repeats)
        if with_latency
        else None
    )
    holds, claims = gate_holds(base_eval, variant_eval, latency)
    return HeldOut(held, base_eval, variant_eval, latency, holds, claims)
