"""Our searches against random search and Optuna's samplers, at equal budget over seeds.

For each seed, the run's own DEAP study runs first (NSGA-II or NSGA-III, with
racing when the run screens); its cost, in full evaluations (questions run /
training questions: a genome screened on a third of them costs a third), is the
budget every other method gets for that seed. The other DEAP selection runs
the same generations and population, cut where its cost passes that budget (its
generations may hold fewer duplicates). All methods start from the same baseline
and preset seeds and share one cached evaluator, so a genome two methods both
propose is evaluated once (its figures are deterministic, so sharing changes
nothing but the time).

Per method and seed: the hypervolume after every evaluation
(:mod:`mragent.evolution.hypervolume`), the best score, the share of
evaluations inside the hypervolume's reference box (the others add nothing),
and the evaluations until the first gate candidate. Across seeds: medians and ranges, and for each
method the evaluations it needed to reach random search's final hypervolume.
A claim that one method beats another is made only when its final
hypervolume is higher on enough seeds for a one-sided sign test at 5%
(:func:`mragent.evolution.stats.sign_test`); every ordered pair is tested, and
for our searches the report says so too where the numbers do not show it.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mragent.evolution.gate import evaluations_to_gate
from mragent.evolution.hypervolume import evaluations_to_reach, hypervolume_curve, overshoot
from mragent.evolution.random_search import random_search
from mragent.evolution.stats import sign_test
from mragent.evolution.study import NSGA2, NSGA3, BatchEvaluate, Study
from mragent.evolution.trial import Trial

RANDOM, TPE, OPTUNA_NSGA2 = "random", "optuna-tpe", "optuna-nsga2"
OURS = (NSGA2, NSGA3)
METHODS = (NSGA2, NSGA3, RANDOM, TPE, OPTUNA_NSGA2)
LABELS = {
    NSGA2: "NSGA-II (mragent, DEAP)",
    NSGA3: "NSGA-III (mragent, DEAP)",
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
        spent: Cumulative cost after each evaluation, in full evaluations.
    """

    method: str
    seed: int
    trials: tuple[Trial, ...]
    curve: tuple[float, ...]
    spent: tuple[float, ...]

    @property
    def cost(self) -> float:
        """What the search spent, in full evaluations."""
        return self.spent[-1] if self.spent else 0.0

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
    """Every method's run at every seed.

    Attributes:
        runs: The runs.
        labels: How reports name each method (ours say what drives them).
    """

    runs: tuple[MethodRun, ...]
    labels: Mapping[str, str] = field(default_factory=lambda: dict(LABELS))

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

    @property
    def methods(self) -> list[str]:
        """The methods compared, in :data:`METHODS` order."""
        present = {r.method for r in self.runs}
        return [m for m in METHODS if m in present]

    def reach_random(self, method: str) -> list[int | None]:
        """Per seed: evaluations ``method`` needed to reach random search's final hypervolume."""
        return [
            evaluations_to_reach(self.run(method, s).curve, self.run(RANDOM, s).final_hypervolume)
            for s in self.seeds
        ]

    def share_to_reach_random(self, method: str) -> list[float | None]:
        """Per seed: the share of random search's budget ``method`` spent to reach its final
        hypervolume (None: never reached)."""
        shares: list[float | None] = []
        for seed, reached in zip(self.seeds, self.reach_random(method), strict=True):
            run, budget = self.run(method, seed), self.run(RANDOM, seed).cost
            shares.append(None if reached is None else run.spent[reached - 1] / budget)
        return shares

    def figures(self, method: str) -> dict[str, Any]:
        """A method's figures across seeds."""
        runs = self.of(method)
        budgets = [len(r.trials) for r in runs]
        reach = self.reach_random(method)
        shares = self.share_to_reach_random(method)
        return {
            "method": method,
            "label": self.labels[method],
            "seeds": self.seeds,
            "evaluations": budgets,
            "cost_full_evaluations": [round(r.cost, 3) for r in runs],
            "final_hypervolume": _summary([r.final_hypervolume for r in runs]),
            "best_score": _summary([r.best_score for r in runs]),
            "inside_box_share": _summary([r.inside_share for r in runs]),
            "evaluations_to_gate": _reached([r.to_gate for r in runs]),
            "to_reach_random_final_hv": _reached(reach),
            "budget_share_to_reach_random_final_hv": (
                statistics.median(s for s in shares if s is not None)
                if all(s is not None for s in shares)
                else None
            ),
            "reach_random_within_half_budget": sum(s is not None and s <= 0.5 for s in shares),
        }

    def claim(self, method: str, other: str) -> dict[str, Any]:
        """Whether ``method``'s final hypervolume beats ``other``'s across seeds (sign test)."""
        ours = [r.final_hypervolume for r in self.of(method)]
        theirs = [r.final_hypervolume for r in self.of(other)]
        wins = sum(a > b + 1e-12 for a, b in zip(ours, theirs, strict=True))
        losses = sum(b > a + 1e-12 for a, b in zip(ours, theirs, strict=True))
        p = sign_test(wins, losses)
        supported = p <= SIGNIFICANCE
        name, rival = self.labels[method], self.labels[other]
        verdict = (
            f"{name} beats {rival} on final hypervolume"
            if supported
            else f"the numbers do not show {name} beating {rival} on final hypervolume"
        )
        return {
            "method": method,
            "other": other,
            "wins": wins,
            "losses": losses,
            "ties": len(ours) - wins - losses,
            "sign_test_p": p,
            "supported": supported,
            "statement": f"{verdict} (higher on {wins}, lower on {losses} of {len(ours)} "
            f"seeds; one-sided sign test p = {p:.3f})",
        }

    def claims(self) -> list[dict[str, Any]]:
        """Our searches against every other method, then every other supported claim."""
        methods = self.methods
        pairs = [(m, o) for m in methods for o in methods if m != o]
        found = [self.claim(m, o) for m, o in pairs]

        def ours_against_others(claim: dict[str, Any]) -> bool:
            return claim["method"] in OURS and claim["other"] not in OURS

        return [c for c in found if ours_against_others(c)] + [
            c for c in found if c["supported"] and not ours_against_others(c)
        ]

    def to_dict(self) -> dict[str, Any]:
        """Figures, claims and every run's curve (JSON-able)."""
        return {
            "seeds": self.seeds,
            "methods": [self.figures(m) for m in self.methods],
            "claims": self.claims(),
            "runs": [
                {
                    "method": r.method,
                    "seed": r.seed,
                    "evaluations": len(r.trials),
                    "cost_full_evaluations": round(r.cost, 3),
                    "final_hypervolume": r.final_hypervolume,
                    "best_score": r.best_score,
                    "inside_box_share": r.inside_share,
                    "evaluations_to_gate": r.to_gate,
                    "hypervolume_curve": list(r.curve),
                }
                for r in self.runs
            ],
        }


def spent(trials: Sequence[Trial]) -> tuple[float, ...]:
    """Cumulative cost of an archive in full evaluations (a screened genome costs its share)."""
    total, out = 0.0, []
    for trial in trials:
        total += trial.evaluation.fidelity
        out.append(total)
    return tuple(out)


def within(trials: Sequence[Trial], budget: float) -> list[Trial]:
    """The first trials of an archive whose cost stays within ``budget`` full evaluations."""
    return [t for t, cost in zip(trials, spent(trials), strict=True) if cost <= budget + 1e-9]


def compare_searches(
    evaluate: BatchEvaluate,
    studies: Callable[[int, str], Study],
    seeds: Sequence[int],
    *,
    first: Study | None = None,
    on_phase: Callable[[str], None] | None = None,
) -> Comparison:
    """Run every method at every seed with the first DEAP study's budget for that seed.

    Args:
        evaluate: The shared, cached evaluator.
        studies: Makes the (not yet run) DEAP study for a seed and a selection
            (``nsga2`` or ``nsga3``); the other methods take its baseline, preset
            seeds, batch size, gene ranges and objective set.
        seeds: The seeds to compare over.
        first: An already finished study for ``seeds[0]`` (the run's own), reused;
            its selection sets the budget.
        on_phase: Told which method and seed is running.
    """
    phase = on_phase or (lambda _message: None)
    lead = first.selection if first is not None else NSGA2
    runs: list[MethodRun] = []
    for seed in seeds:
        found: dict[str, list[Trial]] = {}
        budget = 0
        for selection in (lead, *(s for s in OURS if s != lead)):
            study = first if first is not None and seed == seeds[0] and selection == lead else None
            if study is None:
                phase(f"compare seed {seed}: {LABELS[selection]}")
                study = studies(seed, selection)
                study.optimize()
            if selection == lead:
                reference = study
                # Other methods evaluate every genome in full: the lead's cost, rounded up.
                budget = max(1, math.ceil(spent(study.trials)[-1] - 1e-9))
                found[selection] = study.trials
            else:
                # The same generations may find fewer duplicates, so cost more: cut there.
                found[selection] = within(study.trials, budget)
        base = reference.baseline_trial.evaluation
        common: dict[str, Any] = dict(
            budget=budget,
            seed=seed,
            baseline=reference.baseline,
            seeds=reference.seeds,
            batch=reference.population_size,
            genes=reference.genes,
        )
        # optuna (and the sqlalchemy under it) loads only when a comparison runs.
        from mragent.evolution.optuna_search import optuna_search

        phase(f"compare seed {seed}: {LABELS[RANDOM]}")
        found[RANDOM] = random_search(evaluate, **common)
        for method, sampler in ((TPE, "tpe"), (OPTUNA_NSGA2, "nsga2")):
            phase(f"compare seed {seed}: {LABELS[method]}")
            found[method] = optuna_search(
                evaluate, sampler=sampler, objectives=reference.objectives, **common
            )
        for method in METHODS:
            trials = tuple(found[method])
            curve = tuple(hypervolume_curve(trials, base))
            runs.append(MethodRun(method, seed, trials, curve, spent(trials)))
    labels = dict(LABELS)
    if reference.proposer is not None and reference.proposals:
        for ours in OURS:  # both selections run with the lead's proposer
            labels[ours] = f"{LABELS[ours][:-1]} + {reference.proposals} TPE proposals/gen)"
    return Comparison(tuple(runs), labels)
