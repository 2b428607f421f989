"""Hypervolume, Optuna's samplers, the Optuna export and the compared searches.

Database-free: a deterministic stand-in fitness drives the searches, so these
tests check the bookkeeping (budgets, seeds, numbering, the exact volume);
the real runs in ``test_evolution.py`` drive the same code against FalkorDB.
"""

from __future__ import annotations

from pathlib import Path

import optuna
import pytest

from mragent.core.genome import GENES, PRESETS, Genome, narrowed_genes
from mragent.evolution.compare import METHODS, NSGA2, OURS, RANDOM, compare_searches
from mragent.evolution.hypervolume import (
    evaluations_to_reach,
    hypervolume,
    hypervolume_curve,
    points,
)
from mragent.evolution.objectives import ACCURACY
from mragent.evolution.optuna_search import distributions, export_study, optuna_search
from mragent.evolution.study import Study
from mragent.evolution.trial import Evaluation, Trial, number_trials
from tests.test_evolution import _fake_evaluate

SEEDS = [PRESETS["fast"], PRESETS["deep"], PRESETS["wide"]]


def _eval(accuracy: float, work: float, tokens: float, hops: float) -> Evaluation:
    return Evaluation(10, accuracy, work, tokens, hops, 1.0, 2.0, 0.0, 0.0)


def _trials(*values: tuple[float, float, float, float]) -> list[Trial]:
    genomes = [Genome(cueK=i + 1) for i in range(len(values))]
    return number_trials([(g, "x", _eval(*v)) for g, v in zip(genomes, values, strict=True)])


# --------------------------------------------------------------------------- hypervolume


def test_hypervolume_is_exact_over_all_four_objectives() -> None:
    # Baseline (acc 0.5, work 100, tokens 200, hops 2) maps to (0.5, 0.5, 0.5, 0.5):
    # its box alone is 0.5^4.
    trials = _trials((0.5, 100, 200, 2))
    base = trials[0].evaluation
    assert points(trials, base).tolist() == [[0.5, 0.5, 0.5, 0.5]]
    assert hypervolume(trials, base) == pytest.approx(0.5**4)
    # A second point (0.25, 0.75, 0.5, 0.5): union by inclusion-exclusion.
    both = _trials((0.5, 100, 200, 2), (0.75, 150, 200, 2))
    second = 0.75 * 0.25 * 0.5 * 0.5
    overlap = 0.5 * 0.25 * 0.5 * 0.5
    assert hypervolume(both, base) == pytest.approx(0.5**4 + second - overlap)
    # A point beyond the reference (work over 2x the baseline's) adds nothing; nor does
    # a timed-out genome.
    beyond = _trials((0.5, 100, 200, 2), (1.0, 250, 10, 0.1))
    assert hypervolume(beyond, base) == pytest.approx(0.5**4)


def test_hypervolume_curve_follows_the_archive_in_order() -> None:
    trials = _trials((0.5, 100, 200, 2), (0.4, 150, 300, 3), (0.75, 150, 200, 2), (0.9, 50, 50, 1))
    base = trials[0].evaluation
    curve = hypervolume_curve(trials, base)
    assert curve == pytest.approx([hypervolume(trials[: n + 1], base) for n in range(4)])
    assert curve[0] == curve[1] < curve[2] < curve[3]  # #1 is dominated by the baseline
    assert evaluations_to_reach(curve, curve[2]) == 3
    assert evaluations_to_reach(curve, 2.0) is None


# --------------------------------------------------------------------------- Optuna samplers


def test_distributions_read_the_gene_model() -> None:
    dists = distributions()
    assert list(dists) == [spec.name for spec in GENES]
    depth = distributions(narrowed_genes({"traversalDepth": (1, 2)}))["traversalDepth"]
    assert isinstance(depth, optuna.distributions.IntDistribution)
    assert (depth.low, depth.high) == (1, 2)
    assert isinstance(dists["fusion"], optuna.distributions.CategoricalDistribution)


@pytest.mark.parametrize("sampler", ["tpe", "nsga2"])
def test_optuna_search_spends_the_budget_reproducibly(sampler: str) -> None:
    def run(seed: int) -> list[Trial]:
        return optuna_search(
            _fake_evaluate,
            sampler=sampler,
            budget=30,
            objectives=ACCURACY,
            seed=seed,
            seeds=SEEDS,
            batch=8,
        )

    trials = run(3)
    assert len(trials) == len({t.genome for t in trials}) == 30
    assert [t.origin for t in trials[:4]] == ["baseline", "seed", "seed", "seed"]
    assert trials[0].genome == Genome() and [t.number for t in trials] == list(range(30))
    assert {t.origin for t in trials[4:]} == {sampler}
    assert [(t.genome, t.values) for t in run(3)] == [(t.genome, t.values) for t in trials]
    assert [t.genome for t in run(4)] != [t.genome for t in trials]


def test_optuna_search_stays_inside_a_narrowed_range() -> None:
    genes = narrowed_genes({"traversalDepth": (1, 1)})
    trials = optuna_search(
        _fake_evaluate, sampler="tpe", budget=12, objectives=ACCURACY, batch=4, genes=genes
    )
    # The baseline (depth 2) lies outside: evaluated, but never shown to the sampler.
    assert all(t.genome.traversalDepth == 1 for t in trials[1:])


def test_archive_exports_as_an_optuna_study_its_tools_read(tmp_path: Path) -> None:
    study = Study(_fake_evaluate, population=6, generations=2, seed=1, seeds=SEEDS)
    study.optimize()
    storage = f"sqlite:///{tmp_path / 'evolve.db'}"
    for _ in range(2):  # a second export replaces the study of the same name
        name = export_study(
            study.trials, storage, study_name="run", objectives=ACCURACY, attrs={"seed": 1}
        )
    loaded = optuna.load_study(study_name=name, storage=storage)
    assert len(loaded.trials) == len(study.trials)
    assert loaded.metric_names == list(ACCURACY.names) and loaded.user_attrs == {"seed": 1}
    first = loaded.trials[0]
    assert first.params == study.trials[0].params and first.values == list(study.trials[0].values)
    assert first.user_attrs["number"] == 0 and first.user_attrs["origin"] == "baseline"
    front = {t.user_attrs["number"] for t in loaded.best_trials}
    assert front == {t.number for t in study.pareto_front}
    importances = optuna.importance.get_param_importances(
        loaded,
        target=lambda t: -t.values[0],  # PED-ANOVA looks for low values
        evaluator=optuna.importance.PedAnovaImportanceEvaluator(),
    )
    assert set(importances) <= {spec.name for spec in GENES}
    ax = optuna.visualization.matplotlib.plot_parallel_coordinate(
        loaded, target=lambda t: t.values[1], target_name="cost"
    )
    assert ax.get_figure() is not None


def test_export_refuses_a_storage_it_cannot_open(tmp_path: Path) -> None:
    from mragent.core.errors import ConfigError

    with pytest.raises(ConfigError, match="--optuna-storage"):
        export_study([], "nosuchdialect://x", study_name="run", objectives=ACCURACY)


# --------------------------------------------------------------------------- comparison


def test_comparison_gives_every_method_nsga2s_budget_at_every_seed() -> None:
    def make(seed: int, selection: str = NSGA2) -> Study:
        return Study(
            _fake_evaluate,
            population=6,
            generations=2,
            seed=seed,
            seeds=SEEDS,
            selection=selection,
        )

    first = make(5)
    first.optimize()
    comparison = compare_searches(_fake_evaluate, make, [5, 6], first=first)
    assert comparison.seeds == [5, 6] and len(comparison.runs) == 2 * len(METHODS)
    assert comparison.run(NSGA2, 5).trials == tuple(first.trials)
    for seed in (5, 6):
        budget = len(comparison.run(NSGA2, seed).trials)
        for method in METHODS:
            run = comparison.run(method, seed)
            assert len(run.curve) == len(run.trials) == len(run.spent)
            if method not in OURS:  # NSGA-III runs NSGA-II's generations, not its count
                assert len(run.trials) == budget and run.cost == budget
            assert run.trials[0].genome == Genome()
            assert run.final_hypervolume == pytest.approx(
                hypervolume(run.trials, run.trials[0].evaluation)
            )
            inside = points(run.trials, run.trials[0].evaluation) < 1.0
            assert run.inside_share == pytest.approx(inside.all(axis=1).mean())
    report = comparison.to_dict()
    figures = {f["method"]: f for f in report["methods"]}
    assert figures[RANDOM]["to_reach_random_final_hv"]["never"] == 0  # random reaches its own
    claims = {c["other"]: c for c in report["claims"] if c["method"] == NSGA2}
    assert set(claims) == set(METHODS) - set(OURS)
    assert {c["method"] for c in report["claims"]} <= set(OURS)  # nothing else is supported
    # Two seeds can never make a sign test significant: no claim is made.
    assert not any(c["supported"] for c in claims.values())
    assert "do not show" in claims[RANDOM]["statement"]
