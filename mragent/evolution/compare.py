"""Side-by-side figures for two searches over the same budget.

Hypervolume is computed exactly in 2-D, on accuracy (maximised) against cost
normalised by the baseline's work (minimised): each trial is the point
``(1 - accuracy, work / baseline work)``, the reference point is
``(1, REFERENCE_COST)``, and the dominated area is divided by the reference
box's area so the figure lies in [0, 1]. The context-token and hop objectives
are left out of this figure on purpose: a 2-D area is exact, cheap and easy to
read off the Pareto plot.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mragent.evolution.gate import evaluations_to_gate
from mragent.evolution.trial import Trial, pareto_front

REFERENCE_COST = 2.0
"""Cost (as a multiple of the baseline's work) beyond which a point adds no volume."""


def hypervolume(trials: Sequence[Trial], baseline_work: float) -> float:
    """Normalised 2-D hypervolume of accuracy vs normalised cost (see module doc)."""
    if baseline_work <= 0:
        raise ValueError("baseline work must be positive")
    points = sorted(
        {
            (1.0 - t.evaluation.accuracy, t.evaluation.work / baseline_work)
            for t in trials
            if t.evaluation.accuracy > 0
            and not t.evaluation.timed_out
            and t.evaluation.work / baseline_work < REFERENCE_COST
        }
    )
    area, best_cost = 0.0, REFERENCE_COST
    for i, (error, cost) in enumerate(points):
        if cost >= best_cost:
            continue  # dominated by a point with lower error and lower cost
        next_error = next((e for e, c in points[i + 1 :] if c < cost), 1.0)
        best_cost = cost
        area += (next_error - error) * (REFERENCE_COST - cost)
    return area / REFERENCE_COST


def search_figures(trials: Sequence[Trial], baseline: Trial) -> dict[str, Any]:
    """Budget, hypervolume, best score and evaluations to reach the gate."""
    best = max(trials, key=lambda t: (t.score, -t.number))
    return {
        "evaluations": len(trials),
        "hypervolume": hypervolume(trials, baseline.evaluation.work),
        "best_score": best.score,
        "best_accuracy": best.evaluation.accuracy,
        "best_genome": best.params,
        "front_size": len(pareto_front(trials)),
        "evaluations_to_gate": evaluations_to_gate(trials, baseline),
    }
