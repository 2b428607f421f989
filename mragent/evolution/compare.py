"""NSGA-II against random search and Optuna's samplers, at equal budget over several seeds.

For each seed, the NSGA-II study runs first; the number of distinct genomes it
evaluated is the budget every other method gets for that seed. All methods
start from the same baseline and preset seeds and share one cached evaluator,
so a genome two methods both propose is evaluated once (its figures are
deterministic, so sharing changes nothing but the time).

Per method and seed: the hypervolume after every evaluation
(:mod:`mragent.evolution.hypervolume`), the best score, the share of
evaluations inside the hypervolume's reference box (the others add nothing),
and the evaluations until the first gate candidate. Across seeds: medians and ranges, and for each
method the evaluations it needed to reach random search's final hypervolume.
A claim that NSGA-II beats another method is made only when its final
hypervolume is higher on enough seeds for a one-sided sign test at 5%
(:func:`mragent.evolution.stats.sign_test`); otherwise the report says the
numbers do not show it.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mragent.evolution.gate import evaluations_to_gate
from mragent.evolution.hypervolume import evaluations_to_reach, hypervolume_curve, overshoot
from mragent.evolution.random_search import random_search
from mragent.evolution.stats import sign_test
from mragent.evolution.study import BatchEvaluate, Study
from mragent.evolution.trial import Trial

NSGA2, RANDOM, TPE, OPTUNA_NSGA2 = "nsga2", "random", "optuna-tpe", "optuna-nsga2"
METHODS = (NSGA2, RANDOM, TPE, OPTUNA_NSGA2)
LABELS = {
    NSGA2: "NSGA-II (mragent, DEAP)",
    RANDOM: "random search",
    TPE: "Optuna TPE",
    OPTUNA_NSGA2: "Optuna NSGA-II",
}
SIGNIFICANCE = 0.05


@dataclass(frozen=True)
class MethodRun:
    """One method's search at one seed.

    Attributes:
        method: One of :data:`METHODS`.
        seed: The seed it ran with.
        trials: Its archive, in evaluation order (number 0 is the baseline).
        curve: Hypervolume after each evaluation.
    """

    method: str
    seed: int
    trials: tuple[Trial, ...]
    curve: tuple[float, ...]

    @property
    def final_hypervolume(self) -> float:
        """Hypervolume of the whole archive."""
        return self.curve[-1] if self.curve else 0.0

    @property
    def best_score(self) -> float:
        """Highest score in the archive."""
        return max(t.score for t in self.trials)

    @property
    def inside_share(self) -> float:
        """Share of the evaluations whose point lies inside the hypervolume's reference box."""
        base = self.trials[0].evaluation
        return sum(overshoot(t, base) < 0 for t in self.trials) / len(self.trials)

    @property
    def to_gate(self) -> int | None:
        """Evaluations until the first gate candidate (None: never)."""
        return evaluations_to_gate(self.trials, self.trials[0])


def _summary(values: Sequence[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def _reached(values: Sequence[int | None]) -> dict[str, Any]:
    """Median over the seeds where it happened, and how many seeds it never did."""
    hit = [v for v in values if v is not None]
    return {"median": statistics.median(hit) if hit else None, "never": len(values) - len(hit)}


@dataclass(frozen=True)
class Comparison:
    """Every method's run at every seed."""

    runs: tuple[MethodRun, ...]

    @property
    def seeds(self) -> list[int]:
        """The seeds compared, in order."""
        return list(dict.fromkeys(r.seed for r in self.runs))

    def run(self, method: str, seed: int) -> MethodRun:
        """The run of ``method`` at ``seed``."""
        return next(r for r in self.runs if r.method == method and r.seed == seed)

    def of(self, method: str) -> list[MethodRun]:
        """A method's runs, in seed order."""
        return [self.run(method, seed) for seed in self.seeds]

    def reach_random(self, method: str) -> list[int | None]:
        """Per seed: evaluations ``method`` needed to reach random search's final hypervolume."""
        return [
            evaluations_to_reach(self.run(method, s).curve, self.run(RANDOM, s).final_hypervolume)
            for s in self.seeds
        ]

    def figures(self, method: str) -> dict[str, Any]:
        """A method's figures across seeds."""
        runs = self.of(method)
        budgets = [len(r.trials) for r in runs]
        reach = self.reach_random(method)
        shares = [n / b for n, b in zip(reach, budgets, strict=True) if n is not None]
        return {
            "method": method,
            "label": LABELS[method],
            "seeds": self.seeds,
            "evaluations": budgets,
            "final_hypervolume": _summary([r.final_hypervolume for r in runs]),
            "best_score": _summary([r.best_score for r in runs]),
            "inside_box_share": _summary([r.inside_share for r in runs]),
            "evaluations_to_gate": _reached([r.to_gate for r in runs]),
            "to_reach_random_final_hv": _reached(reach),
            "budget_share_to_reach_random_final_hv": (
                statistics.median(shares) if len(shares) == len(reach) else None
            ),
        }

    def claim(self, other: str) -> dict[str, Any]:
        """Whether NSGA-II's final hypervolume beats ``other``'s across seeds (sign test)."""
        ours = [r.final_hypervolume for r in self.of(NSGA2)]
        theirs = [r.final_hypervolume for r in self.of(other)]
        wins = sum(a > b + 1e-12 for a, b in zip(ours, theirs, strict=True))
        losses = sum(b > a + 1e-12 for a, b in zip(ours, theirs, strict=True))
        p = sign_test(wins, losses)
        supported = p <= SIGNIFICANCE
        verdict = (
            f"NSGA-II beats {LABELS[other]} on final hypervolume"
            if supported
            else f"the numbers do not show NSGA-II beating {LABELS[other]} on final hypervolume"
        )
        return {
            "other": other,
            "wins": wins,
            "losses": losses,
            "ties": len(ours) - wins - losses,
            "sign_test_p": p,
            "supported": supported,
            "statement": f"{verdict} (higher on {wins}, lower on {losses} of {len(ours)} "
            f"seeds; one-sided sign test p = {p:.3f})",
        }

    def to_dict(self) -> dict[str, Any]:
        """Figures, claims and every run's curve (JSON-able)."""
        return {
            "seeds": self.seeds,
            "methods": [self.figures(m) for m in METHODS],
            "claims": [self.claim(m) for m in METHODS if m != NSGA2],
            "runs": [
                {
                    "method": r.method,
                    "seed": r.seed,
                    "evaluations": len(r.trials),
                    "final_hypervolume": r.final_hypervolume,
                    "best_score": r.best_score,
                    "inside_box_share": r.inside_share,
                    "evaluations_to_gate": r.to_gate,
                    "hypervolume_curve": list(r.curve),
                }
                for r in self.runs
            ],
        }


def compare_searches(
    evaluate: BatchEvaluate,
    studies: Callable[[int], Study],
    seeds: Sequence[int],
    *,
    first: Study | None = None,
    on_phase: Callable[[str], None] | None = None,
) -> Comparison:
    """Run every method at every seed with NSGA-II's budget for that seed.

    Args:
        evaluate: The shared, cached evaluator.
        studies: Makes the (not yet run) NSGA-II study for a seed; the other
            methods take its baseline, preset seeds, batch size, gene ranges
            and objective set.
        seeds: The seeds to compare over.
        first: An already finished study for ``seeds[0]`` (the run's own), reused.
        on_phase: Told which method and seed is running.
    """
    phase = on_phase or (lambda _message: None)
    runs: list[MethodRun] = []
    for seed in seeds:
        study = first if first is not None and seed == seeds[0] else None
        if study is None:
            phase(f"compare seed {seed}: {LABELS[NSGA2]}")
            study = studies(seed)
            study.optimize()
        base = study.baseline_trial.evaluation
        budget = len(study.trials)
        common: dict[str, Any] = dict(
            budget=budget,
            seed=seed,
            baseline=study.baseline,
            seeds=study.seeds,
            batch=study.population_size,
            genes=study.genes,
        )
        # optuna (and the sqlalchemy under it) loads only when a comparison runs.
        from mragent.evolution.optuna_search import optuna_search

        found = {NSGA2: study.trials}
        phase(f"compare seed {seed}: {LABELS[RANDOM]}")
        found[RANDOM] = random_search(evaluate, **common)
        for method, sampler in ((TPE, "tpe"), (OPTUNA_NSGA2, "nsga2")):
            phase(f"compare seed {seed}: {LABELS[method]}")
            found[method] = optuna_search(
                evaluate, sampler=sampler, objectives=study.objectives, **common
            )
        for method in METHODS:
            trials = tuple(found[method])
            runs.append(MethodRun(method, seed, trials, tuple(hypervolume_curve(trials, base))))
    return Comparison(tuple(runs))
