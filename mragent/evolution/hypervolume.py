"""Exact hypervolume of a search's archive over every objective of its set (moocore).

All objectives of the set count: accuracy (or recall@5 and accuracy), work,
context tokens and hops, so the figure is 4- or 5-dimensional. Each trial
becomes a point to minimise in a unit box fixed by the baseline:

* a quality objective ``q`` (a share in [0, 1]) becomes ``1 - q``;
* a cost objective ``c`` becomes ``c / (REFERENCE_COST x baseline's c)``
  (the baseline's own cost when positive, else 1).

The reference point is ``(1, ..., 1)``: zero quality, or
:data:`REFERENCE_COST` times the baseline's cost. A point beyond it in any
coordinate adds nothing, so the figure lies in [0, 1] and two searches that
share a baseline (every search of one run does) are compared on one scale.
Genomes stopped by the time cap, and genomes only screened on a subset of the
questions, are left out: their figures cover only part of the questions. The
volume itself is ``moocore.hypervolume`` (exact; HV4D+ in four dimensions), never
a hand-written estimate.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mragent.evolution.trial import Evaluation, Trial

REFERENCE_COST = 2.0
"""Cost, as a multiple of the baseline's, at which a point stops adding volume."""

HYPERVOLUME_RULE = (
    "exact hypervolume (moocore) over every objective of the set, each trial mapped into the "
    f"unit box: 1 - quality for a maximised share, cost / ({REFERENCE_COST:g} x baseline's) "
    "for a minimised cost; reference point (1, ..., 1)"
)
"""How the figure is computed, as reports state it."""


def _scales(baseline: Evaluation) -> list[float | None]:
    """Per objective: None for a maximised share, else the cost that maps to 1."""
    scales: list[float | None] = []
    # As measured: a baseline over the false-abstention bound still sets the scale.
    for weight, value in zip(baseline.objectives.weights, baseline.measured, strict=True):
        scales.append(None if weight > 0 else REFERENCE_COST * (value if value > 0 else 1.0))
    return scales


def points(trials: Sequence[Trial], baseline: Evaluation) -> np.ndarray:
    """The trials' normalised points (rows); timed-out and screened-only ones left out."""
    scales = _scales(baseline)
    rows = [
        [1.0 - v if s is None else v / s for v, s in zip(t.values, scales, strict=True)]
        for t in trials
        if t.evaluation.full
    ]
    return np.array(rows, dtype=float).reshape(len(rows), len(scales))


def overshoot(trial: Trial, baseline: Evaluation) -> float:
    """How far ``trial``'s point lies beyond the reference box: its largest coordinate - 1.

    Negative inside the box (the trial can add volume), 0 or more outside it
    (zero quality, or a cost at or beyond :data:`REFERENCE_COST` x the
    baseline's); infinite for a genome stopped by the time cap or only screened.
    A genome over the false-abstention bound lies outside by how far it is over,
    so the search can move the nearest ones back inside.
    """
    if trial.evaluation.full and not trial.evaluation.feasible:
        return trial.evaluation.violation
    found = points([trial], baseline)
    return float(found[0].max()) - 1.0 if len(found) else float("inf")


def _volume(minimised: np.ndarray) -> float:
    """Exact hypervolume of points in the unit box against the reference point (1, ..., 1)."""
    import moocore  # loaded only when a volume is computed: the CLI's start stays light

    return float(moocore.hypervolume(minimised, ref=np.ones(minimised.shape[1])))


def hypervolume(trials: Sequence[Trial], baseline: Evaluation) -> float:
    """The normalised hypervolume of ``trials`` (see the module docstring)."""
    found = points(trials, baseline)
    inside = found[(found < 1.0).all(axis=1)]
    if not len(inside):
        return 0.0
    return _volume(inside)


def hypervolume_curve(trials: Sequence[Trial], baseline: Evaluation) -> list[float]:
    """Hypervolume of the first ``n`` trials, for ``n`` = 1 .. len(trials).

    The volume is recomputed only when a trial lands inside the box and is not
    weakly dominated by one before it (otherwise it cannot change).
    """
    scales = len(_scales(baseline))
    curve: list[float] = []
    kept = np.empty((0, scales))
    current = 0.0
    for trial in trials:
        point = points([trial], baseline)
        if len(point) and (point[0] < 1.0).all():
            dominated = bool(len(kept)) and bool((kept <= point[0]).all(axis=1).any())
            if not dominated:
                kept = np.vstack([kept, point])
                current = _volume(kept)
        curve.append(current)
    return curve


def evaluations_to_reach(curve: Sequence[float], target: float) -> int | None:
    """1-based evaluation count at which ``curve`` first reaches ``target`` (None: never)."""
    for n, value in enumerate(curve, start=1):
        if value >= target - 1e-12:
            return n
    return None
