"""The acceptance gate over a whole archive, and interleaved latency re-timing.

A variant passes when it regresses none of its objective set's quality metrics
(accuracy; or support recall@5 and accuracy) against the baseline and either
gains at least :data:`ACCURACY_GAIN` (5 points) in one of them or cuts latency
by at least :data:`LATENCY_GAIN`. The highest-scoring passing variant wins.

Latency inside the search is the deterministic work count (so selection is
reproducible); a variant whose work is at least 20% under the baseline's only
*claims* a latency gain. The claim is confirmed by measured wall time:
baseline and variant are re-timed question by question, interleaved (the order
alternates), over several repeats; the median over repeats of the paired ratio
``variant p50 / baseline p50`` must be at most ``1 - LATENCY_GAIN``.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mragent.core.corpus import Question
from mragent.core.genome import Genome
from mragent.evolution.trial import Evaluation, Trial
from mragent.memory.reader import Memory

ACCURACY_GAIN = 0.05
LATENCY_GAIN = 0.20
RETIME_REPEATS = 5
EPS = 1e-9


@dataclass(frozen=True)
class LatencyCheck:
    """Measured, interleaved re-timing of a variant against the baseline.

    Attributes:
        ratios: Per repeat, the variant's p50 over the baseline's p50.
        baseline_p50_ms: Median of the baseline's per-repeat p50s.
        variant_p50_ms: Median of the variant's per-repeat p50s.
    """

    ratios: tuple[float, ...]
    baseline_p50_ms: float
    variant_p50_ms: float

    @property
    def median_ratio(self) -> float:
        """Median of the paired ratios."""
        return statistics.median(self.ratios)

    @property
    def improvement(self) -> float:
        """Latency saved, as a share of the baseline's (``1 - median ratio``)."""
        return 1.0 - self.median_ratio

    @property
    def confirmed(self) -> bool:
        """Whether the improvement reaches :data:`LATENCY_GAIN`."""
        return self.improvement >= LATENCY_GAIN - EPS

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict."""
        return {
            "repeats": len(self.ratios),
            "ratios": list(self.ratios),
            "median_ratio": self.median_ratio,
            "improvement": self.improvement,
            "confirmed": self.confirmed,
            "baseline_p50_ms": self.baseline_p50_ms,
            "variant_p50_ms": self.variant_p50_ms,
        }


def retime(
    memory: Memory,
    questions: Sequence[Question],
    baseline: Genome,
    variant: Genome,
    *,
    repeats: int = RETIME_REPEATS,
) -> LatencyCheck:
    """Time baseline and variant interleaved, question by question.

    One untimed warm-up pass runs each genome first. Within a repeat, which
    genome goes first alternates from question to question and from repeat to
    repeat, so drift and cache warmth fall on both equally.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    for question in questions:
        memory.reconstruct(question.question, baseline)
        memory.reconstruct(question.question, variant)
    ratios, base_p50s, variant_p50s = [], [], []
    for r in range(repeats):
        times: dict[Genome, list[float]] = {baseline: [], variant: []}
        for i, question in enumerate(questions):
            order = (baseline, variant) if (r + i) % 2 == 0 else (variant, baseline)
            for genome in order:
                start = time.perf_counter()
                memory.reconstruct(question.question, genome)
                times[genome].append((time.perf_counter() - start) * 1000)
        b, v = statistics.median(times[baseline]), statistics.median(times[variant])
        base_p50s.append(b)
        variant_p50s.append(v)
        ratios.append(v / b if b > 0 else 1.0)
    return LatencyCheck(
        tuple(ratios), statistics.median(base_p50s), statistics.median(variant_p50s)
    )


def gate_holds(
    baseline: Evaluation, variant: Evaluation, latency: LatencyCheck | None
) -> tuple[bool, list[str]]:
    """Whether a variant passes, judged on one question set.

    Returns:
        ``(passed, claims)``: claims met, from the quality metrics (``accuracy``,
        ``recall@5``) and ``latency`` (only when a confirming
        :class:`LatencyCheck` is given).
    """
    if _regresses(baseline, variant):
        return False, []
    claims = [
        name
        for name in variant.objectives.quality
        if variant.metric(name) - baseline.metric(name) >= ACCURACY_GAIN - EPS
    ]
    if latency is not None and latency.confirmed:
        claims.append("latency")
    return bool(claims), claims


def _regresses(baseline: Evaluation, variant: Evaluation) -> bool:
    """Whether a quality metric fell (a timed-out variant always regresses)."""
    if variant.timed_out:
        return True
    return any(
        variant.metric(name) < baseline.metric(name) - EPS for name in variant.objectives.quality
    )


def claims_latency(baseline: Evaluation, variant: Evaluation) -> bool:
    """Whether the deterministic work count suggests a latency gain worth re-timing."""
    return variant.work <= (1.0 - LATENCY_GAIN) * baseline.work + EPS


def is_candidate(baseline: Evaluation, variant: Evaluation) -> bool:
    """No quality regression, and a quality gain or a (provisional) latency claim."""
    passed, _ = gate_holds(baseline, variant, None)
    return passed or (not _regresses(baseline, variant) and claims_latency(baseline, variant))


def candidates(trials: Sequence[Trial], baseline: Trial) -> list[Trial]:
    """Every archive member that may pass, highest score first (ties: earliest)."""
    found = [
        t
        for t in trials
        if t.genome != baseline.genome and is_candidate(baseline.evaluation, t.evaluation)
    ]
    return sorted(found, key=lambda t: (-t.score, t.number))


def evaluations_to_gate(trials: Sequence[Trial], baseline: Trial) -> int | None:
    """1-based evaluation count at which the first candidate appeared (None: never).

    Latency claims are counted on the work count, unconfirmed by re-timing.
    """
    for position, trial in enumerate(trials, start=1):
        if trial.genome != baseline.genome and is_candidate(baseline.evaluation, trial.evaluation):
            return position
    return None


@dataclass(frozen=True)
class GateResult:
    """The gate's verdict over an archive.

    Attributes:
        passed: Whether a variant passed.
        winner: The passing variant (None: the baseline stands).
        claims: What the winner was accepted on (``accuracy``, ``latency``).
        latency: The winner's re-timing against the baseline, when measured.
        decisions: One line per candidate considered, in order.
    """

    passed: bool
    winner: Trial | None
    claims: tuple[str, ...]
    latency: LatencyCheck | None
    decisions: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict."""
        return {
            "passed": self.passed,
            "winner": self.winner.number if self.winner else None,
            "claims": list(self.claims),
            "latency": self.latency.to_dict() if self.latency else None,
            "decisions": list(self.decisions),
            "rule": f"no regression of the quality objectives (accuracy; with the recall "
            f"objective also recall@5), and +{ACCURACY_GAIN * 100:g} points in one of them "
            f"or latency -{LATENCY_GAIN * 100:g}% (re-timed, median of paired ratios)",
        }


def judge(
    trials: Sequence[Trial],
    baseline: Trial,
    confirm: Callable[[Genome], LatencyCheck] | None = None,
    *,
    max_latency_checks: int = 3,
) -> GateResult:
    """Run the gate over every trial of an archive.

    Args:
        trials: The archive (every evaluated genome).
        baseline: The baseline's trial.
        confirm: Re-times a genome against the baseline. Without it latency
            claims cannot be confirmed and only accuracy gains pass.
        max_latency_checks: Re-timings spent on latency-only candidates before
            the remaining ones are skipped (each costs several passes).
    """
    decisions: list[str] = []
    checks_left, skipped = max_latency_checks, 0
    for trial in candidates(trials, baseline):
        label = f"#{trial.number} (score {trial.score:.3f})"
        passed, claims = gate_holds(baseline.evaluation, trial.evaluation, None)
        if passed:  # a quality gain needs no re-timing
            decisions.append(f"{label}: passes on {' and '.join(claims)}")
            return GateResult(True, trial, tuple(claims), None, tuple(decisions))
        if confirm is None or checks_left <= 0:
            skipped += 1
            continue
        checks_left -= 1
        latency = confirm(trial.genome)
        passed, claims = gate_holds(baseline.evaluation, trial.evaluation, latency)
        if passed:
            decisions.append(f"{label}: passes on latency (re-timed {latency.improvement:+.1%})")
            return GateResult(True, trial, tuple(claims), latency, tuple(decisions))
        decisions.append(
            f"{label}: latency claim refused (re-timed {latency.improvement:+.1%}, "
            f"needs {LATENCY_GAIN:.0%})"
        )
    if skipped:
        why = "no re-timing available" if confirm is None else "re-timing budget spent"
        decisions.append(f"{skipped} latency claim(s) on the work count not re-timed ({why})")
    if not decisions:
        decisions.append(
            "no variant keeps its quality objectives while gaining 5 points or cutting work 20%"
        )
    return GateResult(False, None, (), None, tuple(decisions))
