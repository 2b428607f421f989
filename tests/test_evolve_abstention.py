"""Abstention as an evolve objective: unanswerable variants judged on the memory without
their removed passage, abstention maximised, false abstention a constraint."""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from mragent.apps.bench import ensure_ingested
from mragent.apps.unanswerable import Variant, sample_variants, variant_namespace, without_removed
from mragent.core.corpus import Corpus, Question, parse_corpus
from mragent.core.genome import Genome
from mragent.core.store.base import GraphStore
from mragent.evolution.evaluator import EvaluationPolicy, Evaluator, Unanswerable
from mragent.evolution.fidelity import Racing
from mragent.evolution.gate import gate_holds
from mragent.evolution.hypervolume import overshoot, points
from mragent.evolution.objectives import ABSTENTION, ACCURACY, RECALL, objectives_named
from mragent.evolution.report import REPORT_JSON, REPORT_MD, write_reports
from mragent.evolution.run import EvolveOptions, _screening, run_evolve
from mragent.evolution.trial import TIMED_OUT_COST, Evaluation, Trial, dominates
from mragent.memory.reader import MemoryReader
from tests.fixtures import CHAIN, ingest

POLICY = EvaluationPolicy(f"{ACCURACY.name}+{ABSTENTION}")

# The founder chain, and a second question on the third passage: one variant each.
TWO: dict = copy.deepcopy(CHAIN)
TWO["questions"].append(
    {
        "id": "q2",
        "question": "Lisbon lies on what?",
        "answer": "Tagus",
        "supporting": ["lisbon"],
        "kind": "single",
    }
)


def _evaluation(false_abstention: float | None, abstention: float | None = 0.5) -> Evaluation:
    return Evaluation(
        10, 0.6, 100.0, 50.0, 2.0, 1.0, 2.0, 0.0, 0.0,
        objective=POLICY.objective, abstention=abstention, false_abstention=false_abstention,
    )  # fmt: skip


def test_abstention_joins_each_set_as_a_quality_objective() -> None:
    for base in (ACCURACY, RECALL):
        both = objectives_named(f"{base.name}+{ABSTENTION}")
        assert both.quality == (*base.quality, ABSTENTION)
        assert both.names[len(base.quality)] == ABSTENTION and both.weights[len(base.quality)] == 1
        assert len(both.names) == len(base.names) + 1


def test_false_abstention_over_the_bound_is_dominated_and_never_passes_the_gate() -> None:
    within, over = _evaluation(0.10), _evaluation(0.11, abstention=1.0)
    assert within.feasible and within.values == (0.6, 0.5, 100.0, 50.0, 2.0)
    assert not over.feasible and over.values == (0.0, 0.0, *(TIMED_OUT_COST,) * 3)
    assert dominates(within.values, over.values, objectives_named(POLICY.objective).weights)
    assert over.score(within.score_base()) == 0.0
    assert gate_holds(within, over, None) == (False, [])
    # More abstention on the variants, nothing else changed: a gain the gate sees.
    assert gate_holds(within, _evaluation(0.0, abstention=0.6), None) == (True, [ABSTENTION])
    assert Evaluation.from_dict(json.loads(json.dumps(over.to_dict()))) == over


def _variants(corpus: Corpus) -> list[Variant]:
    """The variants a run split ``q2`` off draws: one per side."""
    q1, q2 = corpus.questions
    return sample_variants([q1], [q2], 2, seed=0)


def test_an_infeasible_baseline_still_scales_the_box_and_the_nearest_infeasible_lead() -> None:
    # The baseline itself abstains too often (the extractive rule on MuSiQue does).
    baseline = _evaluation(0.25)
    feasible = Trial(1, 0, "x", Genome(), _evaluation(0.05), 0.0)
    # Its costs as measured set the scale: a genome as costly sits halfway to the edge.
    assert points([feasible], baseline)[0].tolist() == [0.4, 0.5, 0.5, 0.5, 0.5]
    assert overshoot(feasible, baseline) < 0
    near, far = (Trial(i, 0, "x", Genome(), _evaluation(f), 0.0) for i, f in ((2, 0.15), (3, 0.5)))
    assert overshoot(near, baseline) == pytest.approx(0.05)
    assert 0 < overshoot(near, baseline) < overshoot(far, baseline)


@pytest.fixture
def two(falkor_store: GraphStore) -> Iterator[tuple[Corpus, str]]:
    corpus = parse_corpus(TWO)
    ns = f"t-evabst-{uuid.uuid4().hex[:8]}"
    ingest(falkor_store, corpus, ns)
    yield corpus, ns
    for name in (ns, variant_namespace(ns, _variants(corpus))):
        falkor_store.run("delete_namespace", {"ns": name})


def test_variants_are_asked_of_the_memory_without_their_passage(
    falkor_store: GraphStore, two: tuple[Corpus, str], tmp_path: Path
) -> None:
    corpus, ns = two
    path = tmp_path / "two.json"
    path.write_text(json.dumps(TWO), encoding="utf-8")
    options = EvolveOptions(
        corpus_path=path, ns=ns, generations=1, population=4, seed=0, split="q2",
        out_dir=tmp_path, retime_repeats=1, unanswerable=2, screen_share=0.5,
    )  # fmt: skip
    run = run_evolve(falkor_store, corpus, options)
    assert options.objective_set == POLICY.objective
    full = [t for t in run.study.trials if t.evaluation.full]
    assert full and all(len(t.values) == 5 for t in full)
    assert all(t.evaluation.false_abstention is not None for t in full)
    # The baseline's abstention is what its genome does on the variant, asked of the
    # memory that lacks the removed passage (never of the full one).
    drawn = _variants(corpus)
    (variant,) = [v for v in drawn if v.original.id == "q1"]
    without = MemoryReader(falkor_store, variant_namespace(ns, drawn))
    assert variant.removed not in {row["key"] for row in without.snapshot()}
    baseline = run.study.baseline_trial
    abstained = without.reconstruct(variant.question.question, baseline.genome).answer.abstained
    assert baseline.evaluation.abstention == float(abstained)
    assert run.held_out is not None
    assert run.held_out.baseline.abstention is not None  # the held-out side's variant

    write_reports(run)
    report = json.loads((tmp_path / REPORT_JSON).read_text())
    assert report["objective"] == POLICY.objective
    assert ABSTENTION in report["objectives"]
    assert "abstention" in report["held_out"]["figures"]["baseline"]
    assert "false abstention %" in (tmp_path / REPORT_MD).read_text()


def test_a_genome_that_abstains_on_answerable_questions_is_infeasible(
    falkor_store: GraphStore, two: tuple[Corpus, str]
) -> None:
    corpus, ns = two
    q1, q2 = corpus.questions
    drawn = _variants(corpus)
    vns = variant_namespace(ns, drawn)
    ensure_ingested(falkor_store, without_removed(corpus, drawn), vns)
    memory = MemoryReader(falkor_store, ns)
    unanswerable = Unanswerable(tuple(v.question for v in drawn), vns)
    with Evaluator(memory, [q1, q2], policy=POLICY, unanswerable=unanswerable) as evaluator:
        # With one passage in the context, the two-passage question is covered in part:
        # the strictest coverage rule abstains on it (and on the variants alike).
        strict = Genome(maxContent=1, abstainCoverage=1.0)
        first, second = evaluator([Genome(), strict])
    assert first.questions == 2 and second.questions == 2  # the variants counted apart
    assert first.false_abstention == 0.0 and first.feasible
    assert second.false_abstention == 0.5 and not second.feasible
    assert second.abstention == 1.0 and second.abstention > (first.abstention or 0.0)


def test_screening_takes_the_same_share_of_the_variants() -> None:
    train = [Question(f"q{i}", f"question {i}?", ("a",), ("p",)) for i in range(30)]
    variants = Unanswerable(tuple(Question(f"q{i}~u", "?", (), ("p",), answerable=False)
                                  for i in range(12)), "ns-u")  # fmt: skip
    racing = Racing(0.34, 0.05)
    picked = _screening(racing, train, variants, seed=3)
    asked = [i for i in picked if i < len(train)]
    extra = [i - len(train) for i in picked if i >= len(train)]
    assert tuple(asked) == racing.subset(train, 3)
    assert tuple(extra) == racing.subset(list(variants.questions), 3) and 0 < len(extra) < 12
    assert _screening(racing, train, None, seed=3) == racing.subset(train, 3)
    assert _screening(None, train, variants, seed=3) == ()
