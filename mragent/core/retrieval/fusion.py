"""Fusing dense and sparse cue scores: RRF, linear, DBSF.

Each takes two :class:`Side` objects and ``alpha`` (the dense weight: 0 is sparse
only, 1 dense only) and returns fused scores for the candidates of both sides.

A side holds the candidates' scores and what fusion needs of the whole
population they were cut from: each candidate's rank in it (RRF), its minimum
and maximum (linear) and its mean and spread (DBSF). The sparse side scores
every cue sharing a term with the question, but only its best few and the
dense hits can win, so only they are fused; their ranks and normalisation are
still those of the whole population, so the fused values are exactly those of
fusing everything. Ranks break ties on a stable key (the cue text), never on a
random id, so the order is the same on every engine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from mragent.core.genome import Fusion

Scores = dict[str, float]
RRF_K = 60


@dataclass(frozen=True)
class Side:
    """One retriever's candidates and the statistics of the population they come from.

    Attributes:
        scores: Candidate id -> raw score.
        ranks: Candidate id -> 1-based rank in the population (ties: the stable key).
        low, high: Smallest and largest score in the population.
        mean, sd: Mean and population standard deviation of its scores.
        size: How many scores the population has.
    """

    scores: Scores
    ranks: dict[str, int]
    low: float = 0.0
    high: float = 0.0
    mean: float = 0.0
    sd: float = 0.0
    size: int = 0

    @classmethod
    def of(cls, scores: Scores, tie: Callable[[str], str]) -> Side:
        """A side whose population is its candidates (``tie``: the stable tie key)."""
        ordered = sorted(scores, key=lambda key: (-scores[key], tie(key)))
        return cls.of_population(
            scores,
            {key: rank for rank, key in enumerate(ordered, start=1)},
            np.fromiter(scores.values(), dtype=np.float64, count=len(scores)),
        )

    @classmethod
    def of_population(cls, scores: Scores, ranks: dict[str, int], population: np.ndarray) -> Side:
        """A side cut from ``population`` (every score), with the candidates' ``ranks``."""
        if not len(population):
            return cls(scores, ranks)
        return cls(
            scores,
            ranks,
            float(population.min()),
            float(population.max()),
            float(population.mean()),
            float(population.std()),
            len(population),
        )


def rrf(dense: Side, sparse: Side, alpha: float) -> Scores:
    """Reciprocal rank fusion: ranks, not raw scores, are combined."""
    return {
        key: alpha * (1 / (RRF_K + dense.ranks[key]) if key in dense.ranks else 0.0)
        + (1 - alpha) * (1 / (RRF_K + sparse.ranks[key]) if key in sparse.ranks else 0.0)
        for key in dense.scores.keys() | sparse.scores.keys()
    }


def _minmax(side: Side) -> Scores:
    span = side.high - side.low
    return {key: (v - side.low) / span if span else 1.0 for key, v in side.scores.items()}


def _dbsf_norm(side: Side) -> Scores:
    """Distribution-based normalisation: clip to mean ± 3 standard deviations."""
    if side.size < 2:
        return dict.fromkeys(side.scores, 1.0)
    low, high = side.mean - 3 * side.sd, side.mean + 3 * side.sd
    span = high - low
    return {
        key: min(1.0, max(0.0, (v - low) / span)) if span else 1.0 for key, v in side.scores.items()
    }


def _weighted(norm: Callable[[Side], Scores]) -> Callable[[Side, Side, float], Scores]:
    def fuse(dense: Side, sparse: Side, alpha: float) -> Scores:
        d, s = norm(dense), norm(sparse)
        return {
            key: alpha * d.get(key, 0.0) + (1 - alpha) * s.get(key, 0.0)
            for key in d.keys() | s.keys()
        }

    return fuse


FUSERS: Mapping[Fusion, Callable[[Side, Side, float], Scores]] = {
    Fusion.RRF: rrf,
    Fusion.LINEAR: _weighted(_minmax),
    Fusion.DBSF: _weighted(_dbsf_norm),
}


def fuse(method: Fusion, dense: Side, sparse: Side, alpha: float) -> Scores:
    """Fuse with the named method."""
    return FUSERS[method](dense, sparse, alpha)
