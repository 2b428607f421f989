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

from mragent.apps.evaluate import judge
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


def evaluate_genome(
    memory: MemoryReader,
    questions: Sequence[Question],
    genome: Genome,
    policy: EvaluationPolicy = EvaluationPolicy(),
) -> Evaluation:
    """Run ``genome`` on every question, stopping early when it exceeds the time cap."""
    started = time.perf_counter()
    results = []
    for i, question in enumerate(questions, start=1):
        results.append(judge(question, memory.reconstruct(question.question, genome)))
        over = policy.time_cap_s is not None and time.perf_counter() - started > policy.time_cap_s
        if over and i < len(questions):
            return evaluation_from(results, policy.objective, timed_out=True)
    return evaluation_from(results, policy.objective)


class Evaluator:
    """Evaluates genomes on a fixed question set, each genome at most once.

    Args:
        memory: The parent's memory (used when evaluating serially).
        questions: The questions every genome is judged on.
        db_url: URL each cluster worker opens (required for parallel evaluation).
        workers: Worker processes of a LocalCluster (1 and no ``scheduler``:
            in this process).
        scheduler: Address of an existing Dask cluster's scheduler
            (``tcp://HOST:PORT``); overrides ``workers``.
        on_evaluated: Called with each genome actually evaluated (not cached)
            and its evaluation.
        policy: Objective set and time cap.

    Raises:
        ValueError: on a bad worker count, a missing URL or no questions.
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
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        if (workers > 1 or scheduler) and not db_url:
            raise ValueError("parallel evaluation needs the database URL for its workers")
        if not questions:
            raise ValueError("no questions to evaluate on")
        self.memory = memory
        self.questions = tuple(questions)
        self.db_url, self.workers, self.scheduler = db_url, workers, scheduler
        self.on_evaluated = on_evaluated
        self.policy = policy
        self.cache: dict[Genome, Evaluation] = {}
        self._pool: DaskPool | None = None

    @property
    def parallel(self) -> bool:
        """Whether batches go to a Dask cluster."""
        return self.workers > 1 or self.scheduler is not None

    @property
    def evaluations(self) -> int:
        """Distinct genomes evaluated so far (cache size)."""
        return len(self.cache)

    def __call__(self, genomes: Sequence[Genome]) -> list[Evaluation]:
        """Evaluate ``genomes`` (cached ones are not re-run); results in input order."""
        todo = list(dict.fromkeys(g for g in genomes if g not in self.cache))
        if todo:
            if not self.parallel or len(todo) == 1:
                for genome in todo:
                    result = evaluate_genome(self.memory, self.questions, genome, self.policy)
                    self._store(genome, result)
            else:
                for genome, result in zip(todo, self._ensure_pool().map(todo), strict=True):
                    self._store(genome, result)
        return [self.cache[g] for g in genomes]

    def start(self) -> None:
        """Start the Dask pool now rather than on the first parallel batch (no-op when serial)."""
        if self.parallel:
            self._ensure_pool()

    def _store(self, genome: Genome, result: Evaluation) -> None:
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
                self.policy,
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
