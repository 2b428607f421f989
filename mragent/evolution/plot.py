"""The Pareto-front plot: accuracy against cost, front highlighted."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mragent.evolution.trial import Trial, pareto_front

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def _front_2d(trials: Sequence[Trial]) -> list[Trial]:
    """Trials no other beats on both accuracy and cost (the visible staircase)."""
    ordered = sorted(trials, key=lambda t: (t.evaluation.work, -t.evaluation.accuracy))
    front, best = [], -1.0
    for t in ordered:
        if t.evaluation.accuracy > best:
            front.append(t)
            best = t.evaluation.accuracy
    return front


def plot_pareto(
    path: Path,
    trials: Sequence[Trial],
    baseline: Trial,
    winner: Trial | None,
    random_trials: Sequence[Trial] = (),
    title: str = "",
) -> None:
    """Write ``pareto.png`` atomically (temporary file, then rename).

    Every evaluated genome is a dot; members of the 4-objective Pareto front
    are highlighted and the 2-D accuracy/cost staircase is drawn through them.
    Genomes stopped by the time cap are left out.
    The baseline and the gate's winner are marked; random-search trials, when
    given, are drawn as crosses for comparison.
    """
    # A timed-out genome's figures cover only the questions it reached: not comparable.
    trials = [t for t in trials if not t.evaluation.timed_out]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 5.0), dpi=120)
    try:
        _draw(ax, trials, baseline, winner, random_trials)
        ax.set_xlabel("cost: mean work per question (graph elements + HNSW beam)")
        ax.set_ylabel("accuracy on training questions (%)")
        ax.set_title(title or "NSGA-II archive: accuracy vs cost")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        fig.savefig(tmp, format="png")
        os.replace(tmp, path)
    finally:
        plt.close(fig)


def _xy(trials: Sequence[Trial]) -> tuple[list[float], list[float]]:
    """Cost (mean work) and accuracy (%) of each trial: the plot's coordinates."""
    return [t.evaluation.work for t in trials], [100 * t.evaluation.accuracy for t in trials]


def _draw(
    ax: Axes,
    trials: Sequence[Trial],
    baseline: Trial,
    winner: Trial | None,
    random_trials: Sequence[Trial],
) -> None:
    """The archive, its front and staircase, the baseline, the winner and random search."""
    if random_trials:
        ax.scatter(*_xy(random_trials), marker="x", s=18, color="0.65", label="random search")
    ax.scatter(*_xy(trials), s=16, color="#9db4d3", label="NSGA-II archive")
    front = pareto_front(trials)
    ax.scatter(*_xy(front), s=30, color="#1f5fa8", label="Pareto front (4 objectives)")
    ax.step(*_xy(_front_2d(trials)), where="post", color="#1f5fa8", linewidth=1.0)
    ax.scatter(
        *_xy([baseline]),
        marker="*",
        s=220,
        color="#d62728",
        edgecolor="black",
        zorder=5,
        label="baseline (default genome)",
    )
    if winner is not None:
        ax.scatter(
            *_xy([winner]),
            marker="D",
            s=90,
            color="#2ca02c",
            edgecolor="black",
            zorder=6,
            label="gate winner",
        )
