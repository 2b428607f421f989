"""Fitness evaluation: cached by genotype, optionally on a Dask cluster, time-capped.

In parallel, each worker of the cluster (:mod:`mragent.evolution.distributed`)
opens its own store from the database URL (for the embedded default, the URL of
the server the parent already started) and builds its own
:class:`~mragent.memory.reader.MemoryReader`. Results come back in submission order, so
parallel and serial runs give the same archive.

An optional per-genome time cap stops a genome whose questions take longer in
total than the cap: its evaluation is marked ``timed_out`` and every genome
that finished dominates it. The cap trades reproducibility for a bounded run
(whether a genome crosses it depends on the machine), so it is off by default
and meant as a safety net beside a narrowed gene range.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from mragent.apps.evaluate import QuestionResult, judge
from mragent.core.corpus import Question
from mragent.core.genome import Genome
from mragent.evolution.objectives import ACCURACY
from mragent.evolution.trial import Evaluation, evaluation_from
from mragent.memory.reader import MemoryReader

if TYPE_CHECKING:
    from mragent.evolution.distributed import DaskPool


@dataclass(frozen=True)
class EvaluationPolicy:
    """How a genome is judged on a question set.

    Attributes:
        objective: Name of the objective set (``accuracy`` or ``recall``).
        time_cap_s: Wall-time budget per genome over all its questions (None: no cap).
    """

    objective: str = ACCURACY.name
    time_cap_s: float | None = None

    def __post_init__(self) -> None:
        if self.time_cap_s is not None and self.time_cap_s <= 0:
            raise ValueError(f"time_cap_s must be positive, got {self.time_cap_s}")


@dataclass(frozen=True)
class Unanswerable:
    """Unanswerable variants (:mod:`mragent.apps.unanswerable`) and the namespace
    they are asked of: the memory without each variant's removed passage."""

    questions: tuple[Question, ...]
    ns: str


@dataclass(frozen=True)
class Questions:
    """A question set with each question's query embedding, computed once per run.

    Every evaluation of every genome, on this process or on a cluster worker,
    reads the same vectors, so a real model embeds each question once, not once
    per genome. The last :attr:`variants` items are unanswerable variants, asked of
    the namespace :attr:`without_ns`; the others are asked of the run's memory.
    """

    items: tuple[Question, ...]
    vectors: np.ndarray
    variants: int = 0
    without_ns: str | None = None

    @classmethod
    def embedded(
        cls,
        memory: MemoryReader,
        questions: Sequence[Question],
        unanswerable: Unanswerable | None = None,
    ) -> Questions:
        """The questions (then the variants) with the memory's embedder's query vectors."""
        variants = unanswerable.questions if unanswerable else ()
        items = (*questions, *variants)
        vectors = memory.embedder.embed_queries([q.question for q in items]) if items else None
        matrix = np.asarray(vectors, dtype=np.float32).reshape(len(items), -1)
        return cls(items, matrix, len(variants), unanswerable.ns if unanswerable else None)

    def __len__(self) -> int:
        return len(self.items)

    def is_variant(self, index: int) -> bool:
        """Whether the item at ``index`` is an unanswerable variant."""
        return index >= len(self.items) - self.variants


class Memories:
    """The memory a run's questions are asked of and, when the run has unanswerable
    variants, the memory they are asked of (same store and embedder), each opened once."""

    def __init__(self, memory: MemoryReader, without_ns: str | None = None) -> None:
        self.memory = memory
        self.without = (
            MemoryReader(memory.store, without_ns, embedder=memory.embedder) if without_ns else None
        )

    def for_item(self, questions: Questions, index: int) -> MemoryReader:
        """The memory the item at ``index`` is asked of."""
        if questions.is_variant(index):
            assert self.without is not None, "variants need the memory without their passages"
            return self.without
        return self.memory


@dataclass(frozen=True)
class Judged:
    """What one genome did on some of a question set: results by question index."""

    results: dict[int, QuestionResult]
    timed_out: bool = False


def judge_questions(
    memories: Memories,
    questions: Questions,
    genome: Genome,
    indices: Sequence[int],
    policy: EvaluationPolicy = EvaluationPolicy(),
) -> Judged:
    """Run ``genome`` on the questions at ``indices``, stopping at the time cap."""
    started = time.perf_counter()
    results: dict[int, QuestionResult] = {}
    for i, index in enumerate(indices, start=1):
        question = questions.items[index]
        memory = memories.for_item(questions, index)
        rec = memory.reconstruct(question.question, genome, vector=questions.vectors[index])
        results[index] = judge(question, rec)
        over = policy.time_cap_s is not None and time.perf_counter() - started > policy.time_cap_s
        if over and i < len(indices):
            return Judged(results, timed_out=True)
    return Judged(results)


def evaluate_genome(
    memory: MemoryReader,
    questions: Sequence[Question] | Questions,
    genome: Genome,
    policy: EvaluationPolicy = EvaluationPolicy(),
) -> Evaluation:
    """Run ``genome`` on every question, stopping early when it exceeds the time cap."""
    if not isinstance(questions, Questions):
        questions = Questions.embedded(memory, questions)
    memories = Memories(memory, questions.without_ns)
    judged = judge_questions(memories, questions, genome, range(len(questions)), policy)
    return _aggregate(questions, judged, sorted(judged.results), policy.objective)


def _aggregate(
    questions: Questions,
    judged: Judged,
    indices: Sequence[int],
    objective: str,
    fidelity: float = 1.0,
) -> Evaluation:
    """The evaluation of the judged questions at ``indices``: the variants apart."""
    found = [i for i in indices if i in judged.results]
    return evaluation_from(
        [judged.results[i] for i in found if not questions.is_variant(i)],
        objective,
        timed_out=judged.timed_out,
        fidelity=fidelity,
        variants=[judged.results[i] for i in found if questions.is_variant(i)],
        with_variants=questions.variants > 0,
    )


class Evaluator:
    """Evaluates genomes on a fixed question set, each question of each genome at most once.

    The questions are embedded once, here; every evaluation reads those vectors.
    A genome can be *screened* on a subset first (:meth:`screen`) and evaluated on
    the full set later (:meth:`__call__`): the screening's questions are not run
    again, and a genome evaluated in full gives its screening figures for free.

    Args:
        memory: The parent's memory (used when evaluating serially).
        questions: The questions every genome is judged on.
        db_url: URL each cluster worker opens (required for parallel evaluation).
        workers: Worker processes of a LocalCluster (1 and no ``scheduler``:
            in this process).
        scheduler: Address of an existing Dask cluster's scheduler
            (``tcp://HOST:PORT``); overrides ``workers``.
        on_evaluated: Called with each genome and evaluation newly computed (at
            either fidelity).
        policy: Objective set and time cap.
        screening: Indices of the questions :meth:`screen` runs (empty: no screening).
        unanswerable: Unanswerable variants every genome is also judged on (their
            abstention and the answerable questions' false abstention are measured).

    Raises:
        ValueError: on a bad worker count, a missing URL, no questions or a bad index.
    """

    def __init__(
        self,
        memory: MemoryReader,
        questions: Sequence[Question],
        *,
        db_url: str | None = None,
        workers: int = 1,
        scheduler: str | None = None,
        on_evaluated: Callable[[Genome, Evaluation], None] | None = None,
        policy: EvaluationPolicy = EvaluationPolicy(),
        screening: Sequence[int] = (),
        unanswerable: Unanswerable | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        if (workers > 1 or scheduler) and not db_url:
            raise ValueError("parallel evaluation needs the database URL for its workers")
        if not questions:
            raise ValueError("no questions to evaluate on")
        asked = len(questions) + (len(unanswerable.questions) if unanswerable else 0)
        if any(not 0 <= i < asked for i in screening):
            raise ValueError("a screening index lies outside the question set")
        self.memory = memory
        self.questions = Questions.embedded(memory, questions, unanswerable)
        self.memories = Memories(memory, self.questions.without_ns)
        self.db_url, self.workers, self.scheduler = db_url, workers, scheduler
        self.on_evaluated = on_evaluated
        self.policy = policy
        self.screening = tuple(sorted(set(screening)))
        self.cache: dict[Genome, Evaluation] = {}
        """Full-fidelity evaluations."""
        self._judged: dict[Genome, Judged] = {}
        self._pool: DaskPool | None = None

    @property
    def parallel(self) -> bool:
        """Whether batches go to a Dask cluster."""
        return self.workers > 1 or self.scheduler is not None

    @property
    def evaluations(self) -> int:
        """Distinct genomes evaluated so far, at either fidelity."""
        return len(self._judged.keys() | self.cache.keys())

    @property
    def questions_run(self) -> int:
        """Question evaluations run so far (the work a budget counts)."""
        return sum(len(j.results) for j in self._judged.values())

    def __call__(self, genomes: Sequence[Genome]) -> list[Evaluation]:
        """Evaluate ``genomes`` on every question (cached ones are not re-run); input order."""
        everything = tuple(range(len(self.questions)))
        todo = list(dict.fromkeys(g for g in genomes if g not in self.cache))
        self._run(todo, everything)
        for genome in todo:
            self._store(genome, self._evaluation(genome, everything), full=True)
        return [self.cache[g] for g in genomes]

    def screen(self, genomes: Sequence[Genome]) -> list[Evaluation]:
        """Evaluate ``genomes`` on the screening questions only; input order.

        Raises:
            ValueError: when the evaluator has no screening subset.
        """
        if not self.screening:
            raise ValueError("this evaluator has no screening subset")
        todo = list(dict.fromkeys(genomes))
        fresh = [g for g in todo if g not in self._judged and g not in self.cache]
        # A genome known only from a checkpoint (in the cache, without its questions'
        # results) is judged on the screening questions again: deterministic, so its
        # figures are the ones the interrupted run had.
        self._run(todo, self.screening)
        found = {g: self._evaluation(g, self.screening) for g in todo}
        for genome in fresh:
            self._store(genome, found[genome], full=False)
        return [found[g] for g in genomes]

    def screened(self, genome: Genome) -> Evaluation:
        """A genome's figures on the screening questions (run only if never judged there)."""
        return self.screen([genome])[0]

    def _run(self, genomes: Sequence[Genome], indices: Sequence[int]) -> None:
        """Judge each genome on those of ``indices`` it has not been judged on."""
        jobs = []
        for genome in genomes:
            held = self._judged.get(genome, Judged({}))
            missing = tuple(i for i in indices if i not in held.results)
            if missing and not held.timed_out:
                jobs.append((genome, missing))
        if not jobs:
            return
        if not self.parallel or len(jobs) == 1:
            judged = [
                judge_questions(self.memories, self.questions, g, idx, self._policy(idx))
                for g, idx in jobs
            ]
        else:
            judged = self._ensure_pool().map(jobs, [self._policy(idx) for _, idx in jobs])
        for (genome, _), found in zip(jobs, judged, strict=True):
            held = self._judged.get(genome, Judged({}))
            self._judged[genome] = Judged({**held.results, **found.results}, found.timed_out)

    def _policy(self, indices: Sequence[int]) -> EvaluationPolicy:
        """The policy for a part of the questions: the time cap in proportion."""
        cap = self.policy.time_cap_s
        if cap is None or len(indices) == len(self.questions):
            return self.policy
        return EvaluationPolicy(self.policy.objective, cap * len(indices) / len(self.questions))

    def _evaluation(self, genome: Genome, indices: Sequence[int]) -> Evaluation:
        fidelity = len(indices) / len(self.questions)
        return _aggregate(
            self.questions, self._judged[genome], indices, self.policy.objective, fidelity
        )

    def start(self) -> None:
        """Start the Dask pool now rather than on the first parallel batch (no-op when serial)."""
        if self.parallel:
            self._ensure_pool()

    def _store(self, genome: Genome, result: Evaluation, *, full: bool) -> None:
        if full:
            self.cache[genome] = result
        if self.on_evaluated:
            self.on_evaluated(genome, result)

    def _ensure_pool(self) -> DaskPool:
        if self._pool is None:
            from mragent.evolution.distributed import DaskPool  # dask loads only when used

            assert self.db_url is not None
            self._pool = DaskPool(
                self.db_url,
                self.memory.ns,
                self.questions,
                workers=self.workers,
                scheduler=self.scheduler,
            )
        return self._pool

    def close(self) -> None:
        """Shut the cluster connection down (a LocalCluster stops its workers)."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
