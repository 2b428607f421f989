"""The run's plots: the Pareto front with hypervolume per generation, and the comparison.

``pareto.png``: left, the first quality objective (accuracy, or recall@5 under
the recall objective) against cost on a log axis, so a few very expensive
genomes do not squeeze the front into a corner; every front member is labelled
with its trial number, the number the terminal and the reports use. Right, the
archive's hypervolume after each generation (the logbook's figure).

``compare.png``: hypervolume against evaluations for every compared method,
the median over seeds as a line and the range as a band.
"""

from __future__ import annotations

import io
import statistics
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mragent.core.files import write_bytes_atomic
from mragent.evolution.compare import Comparison, MethodRun
from mragent.evolution.trial import Trial, pareto_front

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


@contextmanager
def _figure(path: Path, columns: int, size: tuple[float, float]) -> Iterator[tuple[Figure, Any]]:
    """A figure written atomically to ``path`` when the block ends."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, columns, figsize=size, dpi=120)
    try:
        yield fig, axes
        fig.tight_layout()
        png = io.BytesIO()
        fig.savefig(png, format="png")
        write_bytes_atomic(path, png.getvalue())
    finally:
        plt.close(fig)


def _quality(trial: Trial) -> float:
    """The first quality objective of the trial's set, in %."""
    return 100 * trial.evaluation.metric(trial.evaluation.objectives.quality[0])


def _xy(trials: Sequence[Trial]) -> tuple[list[float], list[float]]:
    """Cost (mean work) and first quality objective (%) of each trial."""
    return [t.evaluation.work for t in trials], [_quality(t) for t in trials]


def _front_2d(trials: Sequence[Trial]) -> list[Trial]:
    """Trials no other beats on both the plotted quality and cost (the visible staircase)."""
    ordered = sorted(trials, key=lambda t: (t.evaluation.work, -_quality(t), t.number))
    front, best = [], -1.0
    for t in ordered:
        if _quality(t) > best:
            front.append(t)
            best = _quality(t)
    return front


def plot_pareto(
    path: Path,
    trials: Sequence[Trial],
    baseline: Trial,
    winner: Trial | None,
    logbook: Sequence[dict[str, Any]] = (),
    title: str = "",
    baseline_name: str = "baseline",
) -> None:
    """Write ``pareto.png``: the archive and its front, and hypervolume per generation.

    Genomes stopped by the time cap or only screened are left out (their figures
    cover only the questions they reached). The baseline (named ``baseline_name``)
    and the gate's winner are marked.
    """
    trials = [t for t in trials if t.evaluation.full]
    with _figure(path, 2, (12.0, 5.0)) as (_, (left, right)):
        _draw_front(left, trials, (baseline, baseline_name), winner)
        quality = baseline.evaluation.objectives.quality[0]
        left.set_xscale("log")
        left.set_xlabel("cost: mean work per question (log scale)")
        left.set_ylabel(f"{quality} on training questions (%)")
        left.set_title(title or "archive and Pareto front")
        left.grid(True, which="both", alpha=0.3)
        left.legend(loc="lower right", fontsize=8)
        gens = [entry["gen"] for entry in logbook if "hypervolume" in entry]
        volumes = [entry["hypervolume"] for entry in logbook if "hypervolume" in entry]
        right.plot(gens, volumes, marker="o", color="#1f5fa8")
        right.set_xlabel("generation")
        right.set_ylabel("hypervolume of the archive (all objectives)")
        right.set_title("hypervolume per generation")
        right.grid(True, alpha=0.3)


def _draw_front(
    ax: Axes, trials: Sequence[Trial], baseline: tuple[Trial, str], winner: Trial | None
) -> None:
    """The archive, its front (each point labelled #number), the baseline (and its
    name) and the winner."""
    ax.scatter(*_xy(trials), s=16, color="#9db4d3", label="archive")
    front = pareto_front(trials)
    ax.scatter(*_xy(front), s=30, color="#1f5fa8", label="Pareto front (all objectives), #trial")
    ax.step(*_xy(_front_2d(trials)), where="post", color="#1f5fa8", linewidth=1.0)
    for t in front:
        x, y = t.evaluation.work, _quality(t)
        ax.annotate(f"#{t.number}", (x, y), xytext=(3, 3), textcoords="offset points", fontsize=6)
    marks = [(baseline[0], "*", 220, "#d62728", f"baseline ({baseline[1]})")]
    if winner is not None:
        marks.append((winner, "D", 90, "#2ca02c", f"gate winner #{winner.number}"))
    for z, (trial, marker, size, colour, label) in enumerate(marks, start=5):
        ax.scatter(
            *_xy([trial]),
            marker=marker,
            s=size,
            color=colour,
            edgecolor="black",
            zorder=z,
            label=label,
        )


def plot_comparison(path: Path, comparison: Comparison, title: str = "") -> None:
    """Write ``compare.png``: hypervolume against cost (full evaluations), per method,
    over seeds (a step curve per run, read on a common grid)."""
    import bisect

    with _figure(path, 1, (7.5, 5.0)) as (_, ax):
        for method in comparison.methods:
            runs = comparison.of(method)
            end = min(r.cost for r in runs)
            xs = [end * i / 100 for i in range(1, 101)]

            def at(run: MethodRun, x: float) -> float:
                reached = bisect.bisect_right(run.spent, x + 1e-9)
                return run.curve[reached - 1] if reached else 0.0

            columns = [[at(r, x) for r in runs] for x in xs]
            ax.plot(xs, [statistics.median(v) for v in columns], label=comparison.labels[method])
            ax.fill_between(xs, [min(v) for v in columns], [max(v) for v in columns], alpha=0.15)
        ax.set_xlabel("cost: full evaluations (a screened genome counts its share)")
        ax.set_ylabel("hypervolume (all objectives)")
        seeds = len(comparison.seeds)
        ax.set_title(title or f"median over {seeds} seeds (band: min..max)")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
