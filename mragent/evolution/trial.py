"""Immutable records of what one genome did on one question set.

An :class:`Evaluation` holds the measured outcome (the objectives of its
:class:`~mragent.evolution.objectives.Objectives` set, support recall@k, measured
latency and answer quality); a :class:`Trial` places it in a search:
its number (evaluation order), generation, origin and policy score. Both round
trip through plain JSON (checkpoints and reports use the same serialiser).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mragent.apps.evaluate import QuestionResult, ScoreBase, score, summarise
from mragent.core.genome import Genome, make_genome
from mragent.core.retrieval.abstention import MAX_FALSE_ABSTENTION
from mragent.evolution.objectives import ABSTENTION, ACCURACY, Objectives, objectives_named

WEIGHTS: tuple[float, ...] = ACCURACY.weights
"""DEAP fitness weights of the accuracy set: accuracy maximised, the rest minimised."""

TIMED_OUT_COST = 1e9
"""Cost objectives of a genome stopped by the time cap: worse than any measured value,
so every genome that finished dominates it."""


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
        em: Mean exact match of the extracted answer (None when no question
            was answered, i.e. none was run).
        f1: Mean token F1 of the extracted answer (None likewise).
        failures: ``(question id, produced answer)`` for each wrong question.
        recall: ``(k, mean support recall@k)`` over questions with gold passages.
        objective: Name of the objective set :attr:`values` follows.
        timed_out: Whether the time cap stopped it before the last question
            (its figures cover only the questions run; :attr:`values` is dominated).
        fidelity: Share of the search's question set it was scored on (1: all of
            them; below 1: screened on a subset and not promoted, so it stays
            out of the front, the hypervolume and the gate).
        abstention: Share of the unanswerable variants abstained on (None: the
            search has none, or none was run).
        false_abstention: Share of the answerable questions abstained on (None
            likewise); over :data:`MAX_FALSE_ABSTENTION` the evaluation is
            infeasible (:attr:`feasible`).
    """

    questions: int
    accuracy: float
    work: float
    tokens: float
    hops: float
    latency_p50_ms: float
    latency_p95_ms: float
    em: float | None
    f1: float | None
    failures: tuple[tuple[str, str | None], ...] = ()
    recall: tuple[tuple[int, float], ...] = ()
    objective: str = ACCURACY.name
    timed_out: bool = False
    fidelity: float = 1.0
    abstention: float | None = None
    false_abstention: float | None = None

    @property
    def feasible(self) -> bool:
        """Whether it keeps the false-abstention constraint (always, without variants)."""
        return self.false_abstention is None or self.false_abstention <= MAX_FALSE_ABSTENTION

    @property
    def violation(self) -> float:
        """How far false abstention lies over its bound (0 when :attr:`feasible`)."""
        return 0.0 if self.feasible else float(self.false_abstention or 0.0) - MAX_FALSE_ABSTENTION

    @property
    def dominated(self) -> bool:
        """Whether every genome that finished within the constraint dominates it: timed
        out, or infeasible."""
        return self.timed_out or not self.feasible

    @property
    def full(self) -> bool:
        """Whether it was scored on the whole question set and ran to the end."""
        return self.fidelity >= 1.0 and not self.timed_out

    @property
    def objectives(self) -> Objectives:
        """The objective set this evaluation is judged by."""
        return objectives_named(self.objective)

    def recall_at(self, k: int) -> float:
        """Mean support recall@k (0 when no question had gold passages)."""
        return dict(self.recall).get(k, 0.0)

    def metric(self, name: str) -> float:
        """A quality metric by objective name (``accuracy``, ``recall@k`` or ``abstention``)."""
        if name == "accuracy":
            return self.accuracy
        if name == ABSTENTION:
            return self.abstention or 0.0
        if name.startswith("recall@"):
            return self.recall_at(int(name.removeprefix("recall@")))
        raise KeyError(name)

    @property
    def measured(self) -> tuple[float, ...]:
        """The objectives of :attr:`objectives`, in order, as measured."""
        quality = tuple(self.metric(name) for name in self.objectives.quality)
        return (*quality, self.work, self.tokens, self.hops)

    @property
    def values(self) -> tuple[float, ...]:
        """The objectives as the search sees them: :attr:`measured`, all deterministic,
        except that a timed-out or infeasible evaluation gets zero quality and
        :data:`TIMED_OUT_COST` costs."""
        if not self.dominated:
            return self.measured
        return (0.0,) * len(self.objectives.quality) + (TIMED_OUT_COST,) * 3

    @property
    def quality(self) -> float:
        """The score policy's quality term: the mean of the quality objectives
        (accuracy; recall@5 and accuracy; and abstention when it is one)."""
        if self.dominated:
            return 0.0
        names = self.objectives.quality
        return sum(self.metric(name) for name in names) / len(names)

    def score_base(self) -> ScoreBase:
        """This evaluation as the score policy's base (it is the baseline's)."""
        return ScoreBase(cost=self.work, context=self.tokens, hops=self.hops)

    def score(self, base: ScoreBase) -> float:
        """The score policy with the deterministic work count as cost (0 when dominated)."""
        if self.dominated:
            return 0.0
        return score(self.quality, self.work, self.tokens, self.hops, base)

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
            "recall": {str(k): v for k, v in self.recall},
            "objective": self.objective,
            "timed_out": self.timed_out,
            "fidelity": self.fidelity,
            "abstention": self.abstention,
            "false_abstention": self.false_abstention,
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
            em=_optional_float(data["em"]),
            f1=_optional_float(data["f1"]),
            failures=tuple((str(qid), answer) for qid, answer in data["failures"]),
            # Absent in checkpoints written before recall was recorded.
            recall=tuple(sorted((int(k), float(v)) for k, v in data.get("recall", {}).items())),
            objective=str(data.get("objective", ACCURACY.name)),
            timed_out=bool(data.get("timed_out", False)),
            fidelity=float(data.get("fidelity", 1.0)),
            abstention=_optional_float(data.get("abstention")),
            false_abstention=_optional_float(data.get("false_abstention")),
        )


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)


def evaluation_from(
    results: Sequence[QuestionResult],
    objective: str = ACCURACY.name,
    *,
    timed_out: bool = False,
    fidelity: float = 1.0,
    variants: Sequence[QuestionResult] = (),
    with_variants: bool = False,
) -> Evaluation:
    """Aggregate judged questions into an :class:`Evaluation`.

    Args:
        results: The judged questions (unanswerable variants apart).
        objective: Name of the objective set the evaluation is judged by.
        timed_out: Whether the time cap stopped the genome before the last question.
        fidelity: Share of the search's question set ``results`` cover.
        variants: The judged unanswerable variants among them.
        with_variants: Whether the search has variants (then false abstention is
            measured, and abstention once some variant was run).
    """
    summary = summarise(results)
    answerable = [r.answer is None for r in results if r.answerable]
    abstention = sum(r.answer is None for r in variants) / len(variants) if variants else None
    false = sum(answerable) / len(answerable) if with_variants and answerable else None
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
        recall=tuple(sorted(summary.recall.items())),
        objective=objective,
        timed_out=timed_out,
        fidelity=fidelity,
        abstention=abstention,
        false_abstention=false,
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
    def values(self) -> tuple[float, ...]:
        """The objective values (see :attr:`Evaluation.values`)."""
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


def dominates(a: Sequence[float], b: Sequence[float], weights: Sequence[float] = WEIGHTS) -> bool:
    """Whether objective vector ``a`` Pareto-dominates ``b`` under ``weights``."""
    better = False
    for x, y, w in zip(a, b, weights, strict=True):
        if w * x < w * y:
            return False
        if w * x > w * y:
            better = True
    return better


def pareto_front(trials: Sequence[Trial]) -> list[Trial]:
    """The non-dominated full-fidelity trials, in evaluation order (one objective set
    per archive); a screened-only genome's figures cover a subset, so it is left out."""
    trials = [t for t in trials if t.evaluation.fidelity >= 1.0]
    if not trials:
        return []
    weights = trials[0].evaluation.objectives.weights
    return [t for t in trials if not any(dominates(o.values, t.values, weights) for o in trials)]


def number_trials(records: Sequence[tuple[Genome, str, Evaluation]]) -> list[Trial]:
    """Trials from ``(genome, origin, evaluation)`` in evaluation order, all in generation 0.

    The first record is the baseline: every score is taken against its evaluation.
    """
    if not records:
        return []
    base = records[0][2].score_base()
    return [
        Trial(n, 0, origin, genome, evaluation, evaluation.score(base))
        for n, (genome, origin, evaluation) in enumerate(records)
    ]
