"""Evolution on datasets with gold passages: the recall objective, the depth bound, the time cap.

Unit tests use hand-made evaluations; the real runs use the small MuSiQue
fixtures in ``tests/datasets_data`` on the embedded FalkorDB.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from mragent.apps.bench import ensure_ingested
from mragent.apps.datasets import load_dataset
from mragent.apps.evaluate import run_questions, summarise
from mragent.core.corpus import Corpus
from mragent.core.errors import ConfigError
from mragent.core.genome import CORE_GENES, PRESETS, Genome, narrowed_genes
from mragent.core.store.base import GraphStore
from mragent.evolution.evaluator import EvaluationPolicy, evaluate_genome
from mragent.evolution.gate import gate_holds, judge
from mragent.evolution.objectives import ACCURACY, RECALL
from mragent.evolution.report import REPORT_JSON, REPORT_MD, write_reports
from mragent.evolution.run import EvolveOptions, run_evolve
from mragent.evolution.study import Study
from mragent.evolution.trial import TIMED_OUT_COST, Evaluation, Trial, dominates, pareto_front
from mragent.memory.reader import MemoryReader

FIXTURES = Path(__file__).parent / "datasets_data"
QUESTIONS = FIXTURES / "musique_mini.json"
POOL = FIXTURES / "musique_mini_corpus.json"


def _recall_eval(recall5: float, accuracy: float, work: float = 100.0) -> Evaluation:
    recall = ((2, recall5 / 2), (5, recall5), (10, recall5))
    return Evaluation(
        10, accuracy, work, 100.0, 2.0, 1.0, 2.0, 0.0, 0.0, recall=recall, objective="recall"
    )


# --------------------------------------------------------------------------- recall objective


def test_recall_objective_puts_measured_recall_first_and_keeps_accuracy() -> None:
    e = _recall_eval(0.6, 0.5)
    assert e.values == (0.6, 0.5, 100.0, 100.0, 2.0)
    assert e.objectives is RECALL and len(RECALL.weights) == len(e.values)
    # The same measurements under the accuracy objective ignore recall.
    plain = Evaluation(10, 0.5, 100.0, 100.0, 2.0, 1.0, 2.0, 0.0, 0.0, recall=e.recall)
    assert plain.values == (0.5, 100.0, 100.0, 2.0) and plain.objectives is ACCURACY
    # Higher recall at equal accuracy and cost dominates; recall alone does not under accuracy.
    better = _recall_eval(0.7, 0.5)
    assert dominates(better.values, e.values, RECALL.weights)
    assert not dominates(e.values, better.values, RECALL.weights)


def test_gate_passes_on_recall_and_refuses_a_regression_of_either_metric() -> None:
    base = _recall_eval(0.50, 0.60)
    assert gate_holds(base, _recall_eval(0.56, 0.60), None) == (True, ["recall@5"])
    assert gate_holds(base, _recall_eval(0.56, 0.66), None) == (True, ["recall@5", "accuracy"])
    assert gate_holds(base, _recall_eval(0.70, 0.58), None) == (False, [])  # accuracy fell
    assert gate_holds(base, _recall_eval(0.48, 0.80), None) == (False, [])  # recall fell
    assert gate_holds(base, _recall_eval(0.53, 0.62), None) == (False, [])  # gains too small


def test_score_and_gate_over_an_archive_follow_recall() -> None:
    base = _recall_eval(0.50, 0.60)
    sb = base.score_base()
    genomes = [PRESETS["default"], Genome(cueK=7), Genome(cueK=8)]
    evals = [base, _recall_eval(0.62, 0.60), _recall_eval(0.50, 0.64)]
    pairs = enumerate(zip(genomes, evals, strict=True))
    trials = [Trial(i, 0, "x", g, e, e.score(sb)) for i, (g, e) in pairs]
    assert trials[1].score > trials[2].score > trials[0].score
    result = judge(trials, trials[0])
    assert result.passed and result.winner == trials[1] and result.claims == ("recall@5",)
    assert pareto_front(trials) == trials[1:]


# --------------------------------------------------------------------------- gene ranges


def test_narrowed_genes_narrow_one_range_and_refuse_bad_ones() -> None:
    genes = narrowed_genes({"traversalDepth": (1, 2)})
    depth = {spec.name: spec for spec in genes}["traversalDepth"]
    assert (depth.low, depth.high) == (1, 2)
    assert [s for s in genes if s.name != "traversalDepth"] == [
        s for s in CORE_GENES if s.name != "traversalDepth"
    ]
    for bad in ({"traversalDepth": (1, 9)}, {"traversalDepth": (3, 2)}, {"fusion": (0, 1)}):
        with pytest.raises(ConfigError):
            narrowed_genes(bad)
    with pytest.raises(ConfigError):
        EvolveOptions(corpus_path=QUESTIONS, ns="x", gene_ranges=(("nope", 1.0, 2.0),))


def _fake_recall(genomes: list[Genome]) -> list[Evaluation]:
    """Deeper is better and dearer: unbounded, the search would climb to depth 4."""
    return [
        _recall_eval(0.2 * g.traversalDepth, 0.5, work=float(10 * g.traversalDepth + g.cueK))
        for g in genomes
    ]


def test_study_stays_inside_a_depth_bound_and_clamps_the_deep_seeds() -> None:
    seeds = [PRESETS["deep"], PRESETS["wide"]]
    free = Study(_fake_recall, population=6, generations=3, seed=3, seeds=seeds, objectives=RECALL)
    free.optimize()
    assert max(t.genome.traversalDepth for t in free.trials) == 4
    bounded = Study(
        _fake_recall,
        population=6,
        generations=3,
        seed=3,
        seeds=seeds,
        objectives=RECALL,
        genes=narrowed_genes({"traversalDepth": (1, 2)}),
    )
    bounded.optimize()
    assert {s.traversalDepth for s in bounded.seeds} == {2}
    assert all(t.genome.traversalDepth <= 2 for t in bounded.trials)
    assert bounded.logbook[-1]["best_recall"] == pytest.approx(0.4)


# --------------------------------------------------------------------------- real runs


@pytest.fixture(scope="module")
def mini() -> Corpus:
    return load_dataset("musique", QUESTIONS, POOL)


@pytest.fixture
def mini_ns(falkor_store: GraphStore, mini: Corpus) -> Iterator[str]:
    name = f"t-recall-{uuid.uuid4().hex[:10]}"
    ensure_ingested(falkor_store, mini, name)
    yield name
    falkor_store.run("delete_namespace", {"ns": name})


def test_time_cap_marks_a_slow_genome_dominated(
    falkor_store: GraphStore, mini: Corpus, mini_ns: str
) -> None:
    memory = MemoryReader(falkor_store, mini_ns)
    genome = PRESETS["default"]
    full = evaluate_genome(memory, mini.questions, genome, EvaluationPolicy("recall"))
    capped = evaluate_genome(memory, mini.questions, genome, EvaluationPolicy("recall", 1e-6))
    assert not full.timed_out and full.questions == len(mini.questions)
    assert capped.timed_out and capped.questions < len(mini.questions)
    assert capped.values[:2] == (0.0, 0.0) and capped.values[2:] == (TIMED_OUT_COST,) * 3
    assert capped.score(full.score_base()) == 0.0
    assert dominates(full.values, capped.values, RECALL.weights)
    assert gate_holds(full, capped, None) == (False, [])
    assert Evaluation.from_dict(json.loads(json.dumps(capped.to_dict()))) == capped


def test_real_run_optimises_measured_recall_within_the_depth_bound(
    falkor_store: GraphStore, mini: Corpus, mini_ns: str, tmp_path: Path
) -> None:
    options = EvolveOptions(
        corpus_path=QUESTIONS,
        ns=mini_ns,
        worker_url=falkor_store.secret_url,
        generations=2,
        population=4,
        seed=5,
        split="0.5",
        out_dir=tmp_path,
        retime_repeats=1,
        objective="recall",
        gene_ranges=(("traversalDepth", 1.0, 1.0),),
    )
    run = run_evolve(falkor_store, mini, options)
    trials = run.study.trials
    assert all(t.evaluation.objective == "recall" and len(t.values) == 5 for t in trials)
    # The preset seeds reach depth 3 and 4; within the bound only the baseline keeps 2.
    assert all(t.genome.traversalDepth == 1 for t in trials[1:])
    # Recall is measured on the genome's retrieved order, question by question.
    memory = MemoryReader(falkor_store, mini_ns)
    measured = summarise(run_questions(memory, run.train, trials[0].genome)).recall
    assert trials[0].values[0] == pytest.approx(measured[5])

    write_reports(run)
    report = json.loads((tmp_path / REPORT_JSON).read_text())
    assert report["objective"] == "recall"
    assert list(report["objectives"]) == ["recall@5", "accuracy", "cost", "context_tokens", "hops"]
    assert report["gene_ranges"] == [{"gene": "traversalDepth", "low": 1.0, "high": 1.0}]
    figures = report["held_out"]["figures"]
    for side in ("baseline", "evolved"):
        assert {"R@2", "R@5", "R@10", "accuracy"} <= set(figures[side])
    assert "R@5 %" in (tmp_path / REPORT_MD).read_text()


def test_recall_objective_needs_gold_passages(
    falkor_store: GraphStore, mini: Corpus, mini_ns: str, tmp_path: Path
) -> None:
    bare = replace(mini, questions=[replace(q, supporting=()) for q in mini.questions])
    options = EvolveOptions(
        corpus_path=QUESTIONS, ns=mini_ns, out_dir=tmp_path, objective="recall", split="0"
    )
    with pytest.raises(ConfigError, match="gold supporting passages"):
        run_evolve(falkor_store, bare, options)


def test_cli_picks_recall_for_datasets_and_records_the_depth_bound(
    falkor_store: GraphStore, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from mragent.cli.app import app

    ns = f"t-recall-cli-{uuid.uuid4().hex[:8]}"
    args = ["evolve", "--dataset", "musique", "--path", str(QUESTIONS), "--corpus", str(POOL)]
    args += ["--db", falkor_store.secret_url, "--ns", ns, "--out", str(tmp_path)]
    args += ["--generations", "0", "--population", "4", "--max-depth", "2", "--split", "0.5"]
    try:
        result = CliRunner().invoke(app, args)
        assert result.exit_code in (0, 3), result.output
        report = json.loads((tmp_path / REPORT_JSON).read_text())
        assert report["objective"] == "recall"
        assert report["gene_ranges"] == [{"gene": "traversalDepth", "low": 1.0, "high": 2.0}]
        assert all(t["genome"]["traversalDepth"] <= 2 for t in report["archive"])
        assert "#1 gen 0: R@5" in result.output
        bad = CliRunner().invoke(app, [*args, "--max-depth", "7"])
        assert bad.exit_code == 2
    finally:
        falkor_store.run("delete_namespace", {"ns": ns})
