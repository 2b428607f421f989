"""Immutable records of what one genome did on one question set.

An :class:`Evaluation` holds the measured outcome (the four objectives plus
measured latency and answer quality); a :class:`Trial` places it in a search:
its number (evaluation order), generation, origin and policy score. Both round
trip through plain JSON (checkpoints and reports use the same serialiser).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mragent.evaluate import QuestionResult, ScoreBase, score, summarise
from mragent.genome import Genome, make_genome

OBJECTIVES: tuple[str, ...] = ("accuracy", "cost", "context_tokens", "hops")
"""Objective names, in the order of :attr:`Trial.values`."""

WEIGHTS: tuple[float, ...] = (1.0, -1.0, -1.0, -1.0)
"""DEAP fitness weights: accuracy is maximised, the rest minimised."""


@dataclass(frozen=True)
class Evaluation:
    """A genome's aggregate outcome on a question set.

    Attributes:
        questions: How many questions were run.
        accuracy: Share judged correct (answer in context, or abstention).
        work: Mean deterministic work per question: the in-loop cost.
        tokens: Mean context tokens.
        hops: Mean hops of the contents handed to synthesis.
        latency_p50_ms: Measured median wall time per question (reported only).
        latency_p95_ms: Measured 95th percentile wall time per question.
        em: Mean exact match of the extracted answer.
        f1: Mean token F1 of the extracted answer.
        failures: ``(question id, produced answer)`` for each wrong question.
    """

    questions: int
    accuracy: float
    work: float
    tokens: float
    hops: float
    latency_p50_ms: float
    latency_p95_ms: float
    em: float
    f1: float
    failures: tuple[tuple[str, str | None], ...] = ()

    @property
    def values(self) -> tuple[float, float, float, float]:
        """The objectives (accuracy, cost, context tokens, hops): all deterministic."""
        return (self.accuracy, self.work, self.tokens, self.hops)

    def score_base(self) -> ScoreBase:
        """This evaluation as the score policy's base (it is the baseline's)."""
        return ScoreBase(cost=self.work, context=self.tokens, hops=self.hops)

    def score(self, base: ScoreBase) -> float:
        """The score policy with the deterministic work count as cost."""
        return score(self.accuracy, self.work, self.tokens, self.hops, base)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict."""
        return {
            "questions": self.questions,
            "accuracy": self.accuracy,
            "work": self.work,
            "tokens": self.tokens,
            "hops": self.hops,
            "latency_p50_ms": self.latency_p50_ms,
            "latency_p95_ms": self.latency_p95_ms,
            "em": self.em,
            "f1": self.f1,
            "failures": [list(item) for item in self.failures],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Evaluation:
        """Inverse of :meth:`to_dict` (raises ``KeyError``/``TypeError`` on bad input)."""
        return cls(
            questions=int(data["questions"]),
            accuracy=float(data["accuracy"]),
            work=float(data["work"]),
            tokens=float(data["tokens"]),
            hops=float(data["hops"]),
            latency_p50_ms=float(data["latency_p50_ms"]),
            latency_p95_ms=float(data["latency_p95_ms"]),
            em=float(data["em"]),
            f1=float(data["f1"]),
            failures=tuple((str(qid), answer) for qid, answer in data["failures"]),
        )


def evaluation_from(results: Sequence[QuestionResult]) -> Evaluation:
    """Aggregate judged questions into an :class:`Evaluation`."""
    summary = summarise(results)
    return Evaluation(
        questions=summary.questions,
        accuracy=summary.accuracy,
        work=summary.work,
        tokens=summary.tokens,
        hops=summary.hops,
        latency_p50_ms=summary.latency_p50_ms,
        latency_p95_ms=summary.latency_p95_ms,
        em=summary.em,
        f1=summary.f1,
        failures=tuple((r.id, r.answer) for r in results if not r.correct),
    )


@dataclass(frozen=True)
class Trial:
    """One evaluated genome in a search's archive.

    Attributes:
        number: Evaluation order within its search (0 is the baseline).
        generation: Generation that first produced it (0: initial population).
        origin: ``baseline``, ``seed``, ``random``, ``offspring`` or ``proposer``.
        genome: The parameters.
        evaluation: What it did on the search's (training) questions.
        score: The score policy against the baseline's evaluation.
    """

    number: int
    generation: int
    origin: str
    genome: Genome
    evaluation: Evaluation
    score: float

    @property
    def params(self) -> dict[str, Any]:
        """The genome as a JSON-able dict."""
        return self.genome.to_json_dict()

    @property
    def values(self) -> tuple[float, float, float, float]:
        """The objective values (see :data:`OBJECTIVES`)."""
        return self.evaluation.values

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict."""
        return {
            "number": self.number,
            "generation": self.generation,
            "origin": self.origin,
            "genome": self.params,
            "score": self.score,
            "evaluation": self.evaluation.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Trial:
        """Inverse of :meth:`to_dict`.

        Raises:
            ConfigError: when the genome is invalid.
            KeyError, TypeError, ValueError: when the record is malformed.
        """
        return cls(
            number=int(data["number"]),
            generation=int(data["generation"]),
            origin=str(data["origin"]),
            genome=make_genome(data["genome"]),
            evaluation=Evaluation.from_dict(data["evaluation"]),
            score=float(data["score"]),
        )


def dominates(a: Sequence[float], b: Sequence[float]) -> bool:
    """Whether objective vector ``a`` Pareto-dominates ``b`` (weights: :data:`WEIGHTS`)."""
    better = False
    for x, y, w in zip(a, b, WEIGHTS, strict=True):
        if w * x < w * y:
            return False
        if w * x > w * y:
            better = True
    return better


def pareto_front(trials: Sequence[Trial]) -> list[Trial]:
    """The non-dominated trials, in evaluation order."""
    return [t for t in trials if not any(dominates(o.values, t.values) for o in trials)]
