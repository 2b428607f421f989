"""Multi-fidelity racing and NSGA-III selection inside the DEAP loop.

The racing tests run real evaluations on the embedded FalkorDB (the chains
corpus of ``test_evolution.py``); the rule and the selection's bookkeeping are
checked on the deterministic stand-in fitness.
"""

# ruff: noqa: F811  (the fixtures imported from test_evolution are parameters here)
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mragent.core.corpus import load_corpus
from mragent.core.genome import PRESETS
from mragent.core.store.base import GraphStore
from mragent.evolution.evaluator import Evaluator, evaluate_genome
from mragent.evolution.fidelity import Racing, could_enter_front
from mragent.evolution.hypervolume import hypervolume
from mragent.evolution.report import REPORT_JSON, write_reports
from mragent.evolution.study import NSGA2, NSGA3, Study, reference_points
from mragent.memory.reader import MemoryReader
from tests.test_evolution import (  # noqa: F401  (fixtures)
    _evaluation,
    _fake_evaluate,
    _run,
    corpus_path,
    falkor,
)

SEEDS = [PRESETS["fast"], PRESETS["deep"], PRESETS["wide"]]


# --------------------------------------------------------------------------- the rule


def test_an_incumbent_rules_a_genome_out_only_by_the_margin_at_no_more_cost() -> None:
    candidate = _evaluation(0.50, 100.0, tokens=50.0)
    assert not could_enter_front(candidate, [_evaluation(0.56, 100.0, tokens=50.0)], 0.05)
    assert could_enter_front(candidate, [_evaluation(0.54, 100.0, tokens=50.0)], 0.05)
    # Far ahead in quality, but dearer in one cost: the candidate may still be on the front.
    assert could_enter_front(candidate, [_evaluation(0.90, 101.0, tokens=50.0)], 0.05)
    assert could_enter_front(candidate, [], 0.05)


def test_the_screening_set_is_a_seeded_share_of_every_kind(corpus_path: Path) -> None:
    questions = load_corpus(corpus_path).questions
    racing = Racing(share=1 / 3)
    subset = racing.subset(questions, seed=4)
    assert subset == racing.subset(questions, seed=4)
    assert subset != racing.subset(questions, seed=5)
    kinds = [questions[i].kind for i in subset]
    assert len(subset) == 5 and set(kinds) == {q.kind for q in questions}
    with pytest.raises(ValueError, match="share"):
        Racing(share=1.0)


# --------------------------------------------------------------------------- racing, real


def _fingerprint(study: Study) -> list[tuple[Any, ...]]:
    return [(t.number, t.genome, t.values, t.evaluation.fidelity) for t in study.trials]


def _racing_study(store: GraphStore, questions: list[Any], **evaluator: Any) -> Study:
    racing = Racing(share=1 / 3, margin=0.0)
    memory = MemoryReader(store, "evolve-test")
    judge = Evaluator(memory, questions, screening=racing.subset(questions, 3), **evaluator)
    study = Study(judge, population=6, generations=3, seed=3, seeds=SEEDS, racing=racing)
    with judge:
        study.optimize()
    return study


def test_racing_scores_in_full_only_genomes_that_could_enter_the_front(
    falkor: GraphStore, corpus_path: Path
) -> None:
    questions = load_corpus(corpus_path).questions
    study = _racing_study(falkor, questions)
    evaluator = study.evaluate
    assert isinstance(evaluator, Evaluator)
    screened = [t for t in study.trials if t.evaluation.fidelity < 1.0]
    full = study.full_trials
    assert screened and len(full) > len(SEEDS) + 1
    assert {t.origin for t in full} >= {"baseline", "seed"}
    # The figures are measurements at their fidelity: a plain evaluation agrees.
    memory = MemoryReader(falkor, "evolve-test")
    subset = [questions[i] for i in evaluator.screening]
    for trial in full[:2] + full[-2:]:
        assert evaluate_genome(memory, questions, trial.genome).values == trial.values
    for trial in screened[:3]:
        assert evaluate_genome(memory, subset, trial.genome).values == trial.values
        assert trial.evaluation.fidelity == pytest.approx(len(subset) / len(questions))
    # A screened-only genome never joins the front, the volume or the best trial.
    base = study.baseline_trial.evaluation
    assert all(t.evaluation.full for t in study.pareto_front)
    assert hypervolume(study.trials, base) == hypervolume(full, base)
    assert study.best_trial.evaluation.full
    # The screening questions of a promoted genome are not run twice.
    assert evaluator.questions_run == len(full) * len(questions) + len(screened) * len(subset)


def test_racing_is_the_same_on_a_dask_cluster(falkor: GraphStore, corpus_path: Path) -> None:
    questions = load_corpus(corpus_path).questions
    serial = _racing_study(falkor, questions)
    parallel = _racing_study(falkor, questions, db_url=falkor.secret_url, workers=2)
    assert _fingerprint(parallel) == _fingerprint(serial)


def test_a_racing_nsga3_run_gates_on_full_fidelity_and_reports_it(
    falkor: GraphStore, corpus_path: Path, tmp_path: Path
) -> None:
    run = _run(falkor, corpus_path, tmp_path, screen_share=1 / 3, selection=NSGA3)
    assert run.chosen.evaluation.full
    write_reports(run)
    report = json.loads((tmp_path / REPORT_JSON).read_text())
    racing = report["search"]["racing"]
    assert report["search"]["selection"] == NSGA3
    assert racing["screened_only"] == len(report["screened_only"])
    assert racing["full"] + racing["screened_only"] == len(report["archive"])
    fidelity = {t["number"]: t["evaluation"]["fidelity"] for t in report["archive"]}
    assert all(fidelity[t["number"]] == 1.0 for t in report["pareto_front"])


# --------------------------------------------------------------------------- NSGA-III


def _study(selection: str, generations: int = 3, **options: Any) -> Study:
    return Study(
        _fake_evaluate,
        population=8,
        generations=generations,
        seed=2,
        seeds=SEEDS,
        selection=selection,
        **options,
    )


def test_nsga3_is_reproducible_resumable_and_its_own_selection() -> None:
    numpy_state = np.random.get_state()[1].copy()
    first, second = _study(NSGA3), _study(NSGA3)
    first.optimize()
    second.optimize()
    assert _fingerprint(first) == _fingerprint(second)
    # The global numpy stream DEAP's niching draws from is left as it was.
    assert (np.random.get_state()[1] == numpy_state).all()
    # Stopped after one generation and restored, it continues like the unbroken run.
    early = _study(NSGA3, generations=1)
    early.optimize()
    resumed = _study(NSGA3)
    resumed.restore(json.loads(json.dumps(early.state())))
    resumed.optimize()
    assert _fingerprint(resumed) == _fingerprint(first)
    nsga2 = _study(NSGA2)
    nsga2.optimize()
    assert [t.genome for t in nsga2.trials] != [t.genome for t in first.trials]


def test_reference_points_fit_the_population() -> None:
    assert len(reference_points(4, 16)) == 10  # two divisions: C(5, 2)
    assert len(reference_points(4, 32)) == 20  # three divisions: C(6, 3)
    assert len(reference_points(5, 32)) == 15
    assert reference_points(5, 16).shape[1] == 5


# --------------------------------------------------------------------------- TPE in the loop


def _tpe_study(generations: int = 3) -> Study:
    from mragent.core.genome import CORE_GENES
    from mragent.evolution.objectives import ACCURACY
    from mragent.evolution.tpe_proposer import TpeProposer

    return _study(NSGA2, generations, proposer=TpeProposer(ACCURACY, CORE_GENES), proposals=4)


def test_tpe_proposals_join_deaps_loop_reproducibly() -> None:
    first, second = _tpe_study(), _tpe_study()
    first.optimize()
    second.optimize()
    assert _fingerprint(first) == _fingerprint(second)
    proposed = [t for t in first.trials if t.origin == "proposer"]
    assert proposed and {t.generation for t in proposed} == {1, 2, 3}
    assert all(entry["rejected"] == 0 for entry in first.logbook)
    early = _tpe_study(generations=1)
    early.optimize()
    resumed = _tpe_study()
    resumed.restore(json.loads(json.dumps(early.state())))
    resumed.optimize()
    assert _fingerprint(resumed) == _fingerprint(first)


def test_a_racing_study_resumed_from_its_checkpoint_continues_exactly(
    falkor: GraphStore, corpus_path: Path
) -> None:
    questions = load_corpus(corpus_path).questions
    unbroken = _racing_study(falkor, questions)
    racing = Racing(share=1 / 3, margin=0.0)

    def study(generations: int) -> Study:
        memory = MemoryReader(falkor, "evolve-test")
        judge = Evaluator(memory, questions, screening=racing.subset(questions, 3))
        return Study(
            judge, population=6, generations=generations, seed=3, seeds=SEEDS, racing=racing
        )

    early = study(1)
    early.optimize()
    # A new process: a fresh evaluator that knows the checkpoint's full evaluations only.
    resumed = study(3)
    resumed.restore(json.loads(json.dumps(early.state())))
    evaluator = resumed.evaluate
    assert isinstance(evaluator, Evaluator)
    evaluator.cache.update({t.genome: t.evaluation for t in resumed.full_trials})
    resumed.optimize()
    assert _fingerprint(resumed) == _fingerprint(unbroken)
