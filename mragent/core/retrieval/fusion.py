"""Fusing dense and sparse cue scores: RRF, linear, DBSF.

Each takes two ``{cue_id: score}`` maps and ``alpha`` (the dense weight: 0 is
sparse only, 1 dense only) and returns fused scores.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable

from mragent.core.genome import Fusion

Scores = dict[str, float]
RRF_K = 60


def _ranks(scores: Scores) -> dict[str, int]:
    ordered = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return {key: rank for rank, (key, _) in enumerate(ordered, start=1)}


def rrf(dense: Scores, sparse: Scores, alpha: float) -> Scores:
    """Reciprocal rank fusion: ranks, not raw scores, are combined."""
    dense_rank, sparse_rank = _ranks(dense), _ranks(sparse)
    return {
        key: alpha * (1 / (RRF_K + dense_rank[key]) if key in dense_rank else 0.0)
        + (1 - alpha) * (1 / (RRF_K + sparse_rank[key]) if key in sparse_rank else 0.0)
        for key in dense_rank.keys() | sparse_rank.keys()
    }


def _minmax(scores: Scores) -> Scores:
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    span = high - low
    return {key: (value - low) / span if span else 1.0 for key, value in scores.items()}


def _dbsf_norm(scores: Scores) -> Scores:
    """Distribution-based normalisation: clip to mean ± 3 standard deviations."""
    if len(scores) < 2:
        return dict.fromkeys(scores, 1.0)
    values = list(scores.values())
    mean, sd = statistics.fmean(values), statistics.pstdev(values)
    low, high = mean - 3 * sd, mean + 3 * sd
    span = high - low
    return {key: min(1.0, max(0.0, (v - low) / span)) if span else 1.0 for key, v in scores.items()}


def _weighted(norm: Callable[[Scores], Scores]) -> Callable[[Scores, Scores, float], Scores]:
    def fuse(dense: Scores, sparse: Scores, alpha: float) -> Scores:
        d, s = norm(dense), norm(sparse)
        return {
            key: alpha * d.get(key, 0.0) + (1 - alpha) * s.get(key, 0.0)
            for key in d.keys() | s.keys()
        }

    return fuse


FUSERS: dict[Fusion, Callable[[Scores, Scores, float], Scores]] = {
    Fusion.RRF: rrf,
    Fusion.LINEAR: _weighted(_minmax),
    Fusion.DBSF: _weighted(_dbsf_norm),
}


def fuse(method: Fusion, dense: Scores, sparse: Scores, alpha: float) -> Scores:
    """Fuse with the named method."""
    return FUSERS[method](dense, sparse, alpha)
