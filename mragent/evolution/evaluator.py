"""Fitness evaluation: cached by genotype, optionally in a process pool, time-capped.

Each pool worker opens its own store from the database URL (for the embedded
default, the URL of the server the parent already started) and builds its own
:class:`~mragent.memory.reader.Memory`. Results come back in submission order, so
parallel and serial runs give the same archive.

An optional per-genome time cap stops a genome whose questions take longer in
total than the cap: its evaluation is marked ``timed_out`` and every genome
that finished dominates it. The cap trades reproducibility for a bounded run
(whether a genome crosses it depends on the machine), so it is off by default
and meant as a safety net beside a narrowed gene range.
"""

from __future__ import annotations

import multiprocessing
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.pool import Pool

from mragent.apps.evaluate import judge
from mragent.core.corpus import Question
from mragent.core.genome import Genome
from mragent.core.store import open_store
from mragent.evolution.objectives import ACCURACY
from mragent.evolution.trial import Evaluation, evaluation_from
from mragent.memory.reader import Memory


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
    memory: Memory,
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


_worker_memory: Memory | None = None
_worker_questions: tuple[Question, ...] = ()
_worker_policy = EvaluationPolicy()


def _init_worker(
    db_url: str, ns: str, questions: tuple[Question, ...], policy: EvaluationPolicy
) -> None:
    global _worker_memory, _worker_questions, _worker_policy
    # Ctrl-C is the parent's to handle: it checkpoints, then terminates the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The store stays open for the worker's life; the pool's shutdown ends the process.
    _worker_memory = Memory(open_store(db_url), ns)
    _worker_questions, _worker_policy = questions, policy


def _evaluate_in_worker(genome: Genome) -> Evaluation:
    assert _worker_memory is not None, "worker not initialised"
    return evaluate_genome(_worker_memory, _worker_questions, genome, _worker_policy)


class Evaluator:
    """Evaluates genomes on a fixed question set, each genome at most once.

    Args:
        memory: The parent's memory (used when ``workers`` is 1).
        questions: The questions every genome is judged on.
        db_url: URL each pool worker opens (required when ``workers`` > 1).
        workers: Processes evaluating in parallel (1: in this process).
        on_evaluated: Called with each genome actually evaluated (not cached)
            and its evaluation.
        policy: Objective set and time cap.

    Raises:
        ValueError: on a bad worker count or a missing URL.
    """

    def __init__(
        self,
        memory: Memory,
        questions: Sequence[Question],
        *,
        db_url: str | None = None,
        workers: int = 1,
        on_evaluated: Callable[[Genome, Evaluation], None] | None = None,
        policy: EvaluationPolicy = EvaluationPolicy(),
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        if workers > 1 and not db_url:
            raise ValueError("parallel evaluation needs the database URL for its workers")
        if not questions:
            raise ValueError("no questions to evaluate on")
        self.memory = memory
        self.questions = tuple(questions)
        self.db_url, self.workers = db_url, workers
        self.on_evaluated = on_evaluated
        self.policy = policy
        self.cache: dict[Genome, Evaluation] = {}
        self._pool: Pool | None = None

    @property
    def evaluations(self) -> int:
        """Distinct genomes evaluated so far (cache size)."""
        return len(self.cache)

    def __call__(self, genomes: Sequence[Genome]) -> list[Evaluation]:
        """Evaluate ``genomes`` (cached ones are not re-run); results in input order."""
        todo = list(dict.fromkeys(g for g in genomes if g not in self.cache))
        if todo:
            if self.workers == 1 or len(todo) == 1:
                for genome in todo:
                    result = evaluate_genome(self.memory, self.questions, genome, self.policy)
                    self._store(genome, result)
            else:
                pool = self._ensure_pool()
                for genome, result in zip(todo, pool.map(_evaluate_in_worker, todo), strict=True):
                    self._store(genome, result)
        return [self.cache[g] for g in genomes]

    def _store(self, genome: Genome, result: Evaluation) -> None:
        self.cache[genome] = result
        if self.on_evaluated:
            self.on_evaluated(genome, result)

    def _ensure_pool(self) -> Pool:
        if self._pool is None:
            # spawn, not fork: the parent may hold sockets and a progress thread.
            self._pool = multiprocessing.get_context("spawn").Pool(
                self.workers,
                initializer=_init_worker,
                initargs=(self.db_url, self.memory.ns, self.questions, self.policy),
            )
        return self._pool

    def close(self, *, abort: bool = False) -> None:
        """Shut the worker pool down; ``abort`` stops work in progress at once."""
        if self._pool is not None:
            if abort:
                self._pool.terminate()
            else:
                self._pool.close()
            self._pool.join()
            self._pool = None

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        self.close(abort=exc_type is not None)
