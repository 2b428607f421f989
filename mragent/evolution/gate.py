"""The acceptance gate over a whole archive: decided on deterministic quantities.

A variant is a *candidate* when it regresses none of its objective set's
quality metrics (accuracy; or support recall@5 and accuracy) against the
baseline and either gains at least :data:`ACCURACY_GAIN` (5 points) in one of
them or cuts the deterministic work count by at least :data:`LATENCY_GAIN`
(20%). Every quantity in that rule is deterministic, so the same seed, data and
engine give the same candidates in the same order (score, then trial number).

The first candidate wins, with one measured check: a candidate that claims only
the work cut is re-timed against the baseline (:mod:`mragent.evolution.latency`).
The measurement confirms the claim when the confidence interval of the paired
latency ratio lies wholly at or under ``1 - LATENCY_GAIN``, vetoes it when the
interval lies wholly over :data:`~mragent.evolution.latency.VETO_RATIO` (parity),
and is reported ``unclear`` otherwise; an unclear
measurement does not change the decision. Only a veto moves the gate on to the
next candidate. A quality gain needs no timing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mragent.core.genome import Genome
from mragent.evolution.latency import REFUTED, VETO_RATIO, LatencyCheck
from mragent.evolution.trial import Evaluation, Trial

ACCURACY_GAIN = 0.05
LATENCY_GAIN = 0.20
EPS = 1e-9
WORK = "work"
"""The claim of a variant whose work count is at least :data:`LATENCY_GAIN` under the baseline's."""

RULE = (
    f"no regression of the quality objectives (accuracy; with the recall objective also "
    f"recall@5), and +{ACCURACY_GAIN * 100:g} points in one of them or work "
    f"-{LATENCY_GAIN * 100:g}%; a work-only claim is re-timed (interleaved, paired): "
    f"confirmed when the confidence interval of the latency ratio lies wholly at or under "
    f"{1 - LATENCY_GAIN:g}, vetoed when wholly over {VETO_RATIO:g}, unclear (the decision "
    f"stands) otherwise"
)
"""The gate's rule, as reports state it."""


def _regresses(baseline: Evaluation, variant: Evaluation) -> bool:
    """Whether a quality metric fell (a timed-out, infeasible or screened-only variant
    always regresses)."""
    if not variant.full or not variant.feasible:
        return True
    return any(
        variant.metric(name) < baseline.metric(name) - EPS for name in variant.objectives.quality
    )


def claims(baseline: Evaluation, variant: Evaluation) -> list[str]:
    """What a variant gains over the baseline, from deterministic quantities only.

    Returns:
        The quality metrics gaining :data:`ACCURACY_GAIN` or more, then ``work``
        when the work count falls by :data:`LATENCY_GAIN` or more; empty when a
        quality metric regresses.
    """
    if _regresses(baseline, variant):
        return []
    gained = [
        name
        for name in variant.objectives.quality
        if variant.metric(name) - baseline.metric(name) >= ACCURACY_GAIN - EPS
    ]
    if variant.work <= (1.0 - LATENCY_GAIN) * baseline.work + EPS:
        gained.append(WORK)
    return gained


def gate_holds(
    baseline: Evaluation, variant: Evaluation, latency: LatencyCheck | None
) -> tuple[bool, list[str]]:
    """Whether a variant passes, judged on one question set.

    Args:
        baseline: The baseline's evaluation.
        variant: The variant's evaluation on the same questions.
        latency: The variant's re-timing, when measured; it matters only for a
            work-only claim, which a ``refuted`` verdict vetoes.

    Returns:
        ``(passed, claims)`` with the claims of :func:`claims`.
    """
    found = claims(baseline, variant)
    if found == [WORK] and latency is not None and latency.verdict == REFUTED:
        return False, found
    return bool(found), found


def candidates(trials: Sequence[Trial], baseline: Trial) -> list[Trial]:
    """Every archive member that may pass, highest score first (ties: earliest)."""
    found = [
        t
        for t in trials
        if t.genome != baseline.genome and claims(baseline.evaluation, t.evaluation)
    ]
    return sorted(found, key=lambda t: (-t.score, t.number))


def evaluations_to_gate(trials: Sequence[Trial], baseline: Trial) -> int | None:
    """1-based evaluation count at which the first candidate appeared (None: never).

    A work claim counts unconfirmed by re-timing.
    """
    for position, trial in enumerate(trials, start=1):
        if trial.genome != baseline.genome and claims(baseline.evaluation, trial.evaluation):
            return position
    return None


@dataclass(frozen=True)
class GateResult:
    """The gate's verdict over an archive.

    Attributes:
        passed: Whether a variant passed.
        winner: The passing variant (None: the baseline stands).
        claims: What the winner was accepted on (quality metrics, ``work``).
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
            "rule": RULE,
        }


def _work_line(baseline: Trial, trial: Trial) -> str:
    saved = 1.0 - trial.evaluation.work / baseline.evaluation.work
    return f"work {baseline.evaluation.work:.0f} -> {trial.evaluation.work:.0f} ({saved:.0%} less)"


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
        confirm: Re-times a genome against the baseline. Without it a work
            claim stands unmeasured.
        max_latency_checks: Vetoes after which the remaining work-only
            candidates are passed over (each re-timing costs several passes).
    """
    decisions: list[str] = []
    checks_left, skipped = max_latency_checks, 0
    for trial in candidates(trials, baseline):
        label = f"#{trial.number} (score {trial.score:.3f})"
        found = claims(baseline.evaluation, trial.evaluation)
        if found != [WORK]:  # a quality gain needs no re-timing
            decisions.append(f"{label}: passes on {' and '.join(found)}")
            return GateResult(True, trial, tuple(found), None, tuple(decisions))
        if confirm is None:
            decisions.append(f"{label}: passes on {_work_line(baseline, trial)}; not re-timed")
            return GateResult(True, trial, tuple(found), None, tuple(decisions))
        if checks_left <= 0:
            skipped += 1
            continue
        checks_left -= 1
        latency = confirm(trial.genome)
        passed, _ = gate_holds(baseline.evaluation, trial.evaluation, latency)
        verb = "passes on" if passed else "vetoed:"
        decisions.append(f"{label}: {verb} {_work_line(baseline, trial)}; {latency.describe()}")
        if passed:
            return GateResult(True, trial, tuple(found), latency, tuple(decisions))
    if skipped:
        decisions.append(f"{skipped} more work-only candidate(s) passed over (re-timing budget)")
    if not decisions:
        decisions.append(
            "no variant keeps its quality objectives while gaining 5 points or cutting work 20%"
        )
    return GateResult(False, None, (), None, tuple(decisions))
