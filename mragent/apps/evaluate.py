"""Running questions through a memory and measuring what happened.

Per question: correctness (answer-in-context, or abstention for unanswerable
questions), EM/F1 of the extracted answer, support recall@k, context tokens,
hops, deterministic work and measured wall time per stage. Overall: means and
latency percentiles, plus the score policy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from mragent.apps.judge import exact_match, f1, is_correct, recall_at_k
from mragent.core.corpus import Question
from mragent.core.genome import Genome
from mragent.memory.reader import MemoryReader, Reconstruction

RECALL_KS = (2, 5, 10)


@dataclass(frozen=True)
class QuestionResult:
    """One question's outcome and costs."""

    id: str
    kind: str
    correct: bool
    em: float | None  # None: the system has no answer step (flat baselines)
    f1: float | None
    answer: str | None
    recall: dict[int, float]
    tokens: int
    hops: int
    work: int
    timings_ms: dict[str, float]
    answerable: bool = True  # whether answering was right (the question's own flag)

    @property
    def latency_ms(self) -> float:
        return sum(self.timings_ms.values())


@dataclass(frozen=True)
class Summary:
    """Aggregates over a question set."""

    questions: int
    accuracy: float
    em: float | None  # None when no result had an answer step
    f1: float | None
    recall: dict[int, float]
    tokens: float
    hops: float
    work: float
    latency_p50_ms: float
    latency_p95_ms: float
    stage_p50_ms: dict[str, float] = field(default_factory=dict)
    stage_p95_ms: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def judge(question: Question, rec: Reconstruction) -> QuestionResult:
    """Score one reconstruction against its gold answer."""
    retrieved = rec.retrieved_keys
    return QuestionResult(
        id=question.id,
        kind=question.kind,
        correct=is_correct(
            question.answerable, question.answers, rec.context.evidence_text, rec.answer.abstained
        ),
        em=exact_match(rec.answer.text, question.answers)
        if question.answerable
        else float(rec.answer.abstained),
        f1=f1(rec.answer.text, question.answers)
        if question.answerable
        else float(rec.answer.abstained),
        answer=rec.answer.text,
        recall={k: recall_at_k(retrieved, question.supporting, k) for k in RECALL_KS}
        if question.supporting
        else {},
        tokens=rec.context.tokens,
        hops=rec.hops,
        work=rec.work,
        timings_ms=dict(rec.timings_ms),
        answerable=question.answerable,
    )


def run_questions(
    memory: MemoryReader,
    questions: Sequence[Question],
    genome: Genome,
    progress: Callable[[int], None] | None = None,
) -> list[QuestionResult]:
    """Reconstruct and judge every question."""
    results = []
    for question in questions:
        results.append(judge(question, memory.reconstruct(question.question, genome)))
        if progress:
            progress(1)
    return results


def _pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else 0.0


def _mean_of_answers(values: list[float | None]) -> float | None:
    """Mean over the results that were answered at all; None when none were."""
    present = [v for v in values if v is not None]
    return float(sum(present) / len(present)) if present else None


def summarise(results: Sequence[QuestionResult]) -> Summary:
    """Means, recall and latency percentiles (overall and per stage)."""
    n = len(results)
    with_support = [r for r in results if r.recall]
    stages = sorted({s for r in results for s in r.timings_ms})
    latencies = [r.latency_ms for r in results]

    def mean(values: list[float]) -> float:
        return float(sum(values) / len(values)) if values else 0.0

    return Summary(
        questions=n,
        accuracy=mean([float(r.correct) for r in results]),
        em=_mean_of_answers([r.em for r in results]),
        f1=_mean_of_answers([r.f1 for r in results]),
        recall={k: mean([r.recall[k] for r in with_support]) for k in RECALL_KS}
        if with_support
        else {},
        tokens=mean([float(r.tokens) for r in results]),
        hops=mean([float(r.hops) for r in results]),
        work=mean([float(r.work) for r in results]),
        latency_p50_ms=_pct(latencies, 50),
        latency_p95_ms=_pct(latencies, 95),
        stage_p50_ms={s: _pct([r.timings_ms.get(s, 0.0) for r in results], 50) for s in stages},
        stage_p95_ms={s: _pct([r.timings_ms.get(s, 0.0) for r in results], 95) for s in stages},
    )


@dataclass(frozen=True)
class ScoreBase:
    """The default genome's measured cost, context and hops on the same data."""

    cost: float
    context: float
    hops: float


def _clamp(x: float) -> float:
    return min(1.0, max(0.0, x))


def score(accuracy: float, cost: float, context: float, hops: float, base: ScoreBase) -> float:
    """The score policy.

    ``0.70·accuracy + 0.15·(1 − cost/BASE) + 0.10·(1 − context/BASE)
    + 0.05·(1 − hops/BASE)``, each term clamped to [0, 1]. ``cost`` is the
    latency figure in use: measured p50 latency in ``mragent bench``, and the
    deterministic work count inside evolution (so selection is reproducible).
    """

    def rel(value: float, baseline: float) -> float:
        return _clamp(1 - value / baseline) if baseline > 0 else 0.0

    return (
        0.70 * _clamp(accuracy)
        + 0.15 * rel(cost, base.cost)
        + 0.10 * rel(context, base.context)
        + 0.05 * rel(hops, base.hops)
    )
