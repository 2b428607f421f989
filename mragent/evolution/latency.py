"""Interleaved latency re-timing, and the noise-aware verdict the gate reads from it.

Inside the search, cost is the deterministic work count. Measured wall time only
*confirms* or *vetoes* a claim the work count made, and it does so with a stated
rule that a noisy measurement cannot flip:

* Baseline and variant are timed question by question, back to back and
  interleaved (which runs first alternates by question and by repeat), after
  one untimed warm-up pass.
* Every (question, repeat) gives one paired ratio, variant time over baseline
  time, measured moments apart, so load on a shared machine falls on both.
* The median paired ratio gets a distribution-free confidence interval from
  order statistics (:func:`~mragent.evolution.stats.median_interval`: no
  assumption about the shape of the noise, which here is heavy-tailed); with
  questions x repeats pairs it is narrow.
* The verdict: ``confirmed`` when the whole interval lies at or under the
  claimed ratio ``1 - gain``, ``refuted`` when the whole interval lies over
  parity (the variant is measurably *slower*, although it does less work), and
  ``unclear`` otherwise. Only ``refuted`` may change a decision. The veto sits
  at parity, not at the claimed ratio, because a variant whose true saving is
  near the claim would otherwise fall on either side of it from run to run.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mragent.core.corpus import Question
from mragent.core.genome import Genome
from mragent.evolution.stats import median_interval
from mragent.memory.reader import MemoryReader

VETO_RATIO = 1.0
"""The latency ratio (variant over baseline) a whole interval must lie above to veto:
parity, so only a variant measurably slower than the baseline is vetoed."""
RETIME_REPEATS = 5
"""Repeats of the whole question set; the pairs number questions x repeats."""
EPS = 1e-9

CONFIRMED, UNCLEAR, REFUTED = "confirmed", "unclear", "refuted"


@dataclass(frozen=True)
class LatencyCheck:
    """Measured, interleaved re-timing of a variant against the baseline.

    Attributes:
        ratios: Per (question, repeat), the variant's time over the baseline's,
            measured back to back.
        baseline_p50_ms: Median of the baseline's times.
        variant_p50_ms: Median of the variant's times.
        gain: The latency saving claimed (0.2: the variant must take at most
            80% of the baseline's time).
    """

    ratios: tuple[float, ...]
    baseline_p50_ms: float
    variant_p50_ms: float
    gain: float = 0.20

    @property
    def median_ratio(self) -> float:
        """Median of the paired ratios."""
        return statistics.median(self.ratios)

    @property
    def interval(self) -> tuple[float, float, float]:
        """``(low, high, confidence)`` of the median ratio (see :func:`median_interval`)."""
        return median_interval(self.ratios)

    @property
    def improvement(self) -> float:
        """Latency saved, as a share of the baseline's (``1 - median ratio``)."""
        return 1.0 - self.median_ratio

    @property
    def verdict(self) -> str:
        """``confirmed``, ``unclear`` or ``refuted`` (see the module docstring)."""
        low, high, _ = self.interval
        if high <= 1.0 - self.gain + EPS:
            return CONFIRMED
        if low > VETO_RATIO + EPS:
            return REFUTED
        return UNCLEAR

    @property
    def confirmed(self) -> bool:
        """Whether the whole interval reaches the claimed saving."""
        return self.verdict == CONFIRMED

    def describe(self) -> str:
        """One line: the saving, its interval and the verdict."""
        low, high, confidence = self.interval
        return (
            f"latency {self.improvement:+.1%} saved ({confidence:.0%} CI "
            f"{1 - high:+.1%}..{1 - low:+.1%}, {len(self.ratios)} interleaved pairs): "
            f"{self.verdict}"
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict."""
        low, high, confidence = self.interval
        return {
            "pairs": len(self.ratios),
            "ratios": list(self.ratios),
            "median_ratio": self.median_ratio,
            "interval": [low, high],
            "confidence": confidence,
            "threshold_ratio": 1.0 - self.gain,
            "improvement": self.improvement,
            "verdict": self.verdict,
            "baseline_p50_ms": self.baseline_p50_ms,
            "variant_p50_ms": self.variant_p50_ms,
        }


def retime(
    memory: MemoryReader,
    questions: Sequence[Question],
    baseline: Genome,
    variant: Genome,
    *,
    repeats: int = RETIME_REPEATS,
    gain: float = 0.20,
) -> LatencyCheck:
    """Time baseline and variant interleaved, question by question.

    One untimed warm-up pass runs each genome first. Within a repeat, which
    genome goes first alternates from question to question and from repeat to
    repeat, so drift and cache warmth fall on both equally.

    Raises:
        ValueError: when ``repeats`` is below 1 or there are no questions.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    if not questions:
        raise ValueError("no questions to time")
    for question in questions:
        memory.reconstruct(question.question, baseline)
        memory.reconstruct(question.question, variant)
    ratios, base_ms, variant_ms = [], [], []
    for r in range(repeats):
        for i, question in enumerate(questions):
            variant_first = (r + i) % 2 == 1
            first, second = (variant, baseline) if variant_first else (baseline, variant)
            a, b = _timed(memory, question, first), _timed(memory, question, second)
            base, var = (b, a) if variant_first else (a, b)
            base_ms.append(base)
            variant_ms.append(var)
            ratios.append(var / base if base > 0 else 1.0)
    return LatencyCheck(
        tuple(ratios), statistics.median(base_ms), statistics.median(variant_ms), gain
    )


def _timed(memory: MemoryReader, question: Question, genome: Genome) -> float:
    """Wall time of one reconstruction, in ms."""
    start = time.perf_counter()
    memory.reconstruct(question.question, genome)
    return (time.perf_counter() - start) * 1000
