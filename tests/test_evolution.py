"""Evolution: typed operators, gate, split, checkpoints, and real runs on FalkorDB."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mragent.apps.bench import ensure_ingested
from mragent.core.corpus import Question, load_corpus
from mragent.core.errors import ConfigError
from mragent.core.genome import GENES, PRESETS, GeneSet, Genome, load_genome
from mragent.core.store import embedded
from mragent.core.store.base import GraphStore
from mragent.core.store.falkordb import FalkorStore
from mragent.evolution.checkpoint import CheckpointError, checkpoint_path, load_checkpoint
from mragent.evolution.encoding import (
    FLOAT_DECIMALS,
    crossover,
    decode,
    encode,
    mutate,
    polynomial_mutation,
    random_genotype,
    sbx_pair,
)
from mragent.evolution.evaluator import EvaluationPolicy, Questions, evaluate_genome
from mragent.evolution.gate import candidates, evaluations_to_gate, judge
from mragent.evolution.latency import LatencyCheck
from mragent.evolution.proposer import ProposalContext
from mragent.evolution.random_search import random_search
from mragent.evolution.report import REPORT_JSON, REPORT_MD, build_report, write_reports
from mragent.evolution.run import (
    EXIT_GATE_FAILED,
    EvolveOptions,
    EvolveRun,
    fingerprint,
    run_evolve,
)
from mragent.evolution.split import split_questions
from mragent.evolution.study import Study
from mragent.evolution.trial import Evaluation, Trial, dominates, evaluation_from, pareto_front
from mragent.memory.reader import MemoryReader

# --------------------------------------------------------------------------- helpers


def _check_genotype(genotype: list[Any]) -> None:
    """Every gene inside its spec: ints int, floats rounded in range, enums valid."""
    assert len(genotype) == len(GENES)
    for spec, value in zip(GENES, genotype, strict=True):
        if spec.kind == "enum":
            assert value in spec.choices, (spec.name, value)
            continue
        assert spec.low is not None and spec.high is not None
        assert spec.low <= value <= spec.high, (spec.name, value)
        if spec.kind == "int":
            assert isinstance(value, int) and not isinstance(value, bool), (spec.name, value)
        else:
            assert isinstance(value, float) and round(value, FLOAT_DECIMALS) == value
    decode(genotype)  # and the model agrees


def _evaluation(
    accuracy: float, work: float, tokens: float = 100.0, hops: float = 2.0
) -> Evaluation:
    return Evaluation(10, accuracy, work, tokens, hops, work / 10, work / 5, 0.0, 0.0)


def _archive(*points: tuple[float, float]) -> list[Trial]:
    """Trials from (accuracy, work) pairs; the first is the default-genome baseline."""
    base = _evaluation(*points[0])
    trials = []
    for i, (acc, work) in enumerate(points):
        genome = PRESETS["default"] if i == 0 else Genome(cueK=i)
        evaluation = _evaluation(acc, work)
        trials.append(Trial(i, 0, "x", genome, evaluation, evaluation.score(base.score_base())))
    return trials


def _fake_evaluate(genomes: list[Genome]) -> list[Evaluation]:
    """A deterministic stand-in fitness for database-free study tests."""
    out = []
    for g in genomes:
        accuracy = min(1.0, 0.5 + 0.1 * g.traversalDepth + 0.02 * g.cueK - 0.2 * g.pruneThreshold)
        work = float(g.efSearch + 10 * g.tagFanout * g.traversalDepth + g.maxContent)
        out.append(_evaluation(round(accuracy, 4), work, tokens=10.0 * g.maxContent))
    return out


# --------------------------------------------------------------------------- operators


def test_encoding_reads_genes_and_round_trips() -> None:
    genome = PRESETS["deep"]
    genotype = encode(genome)
    assert len(genotype) == len(GENES)
    assert decode(genotype) == genome
    with pytest.raises(ValueError):
        decode(genotype[:-1])


def test_mutation_respects_types_and_bounds_and_always_changes() -> None:
    rng = random.Random(1)
    for _ in range(400):
        parent = random_genotype(rng)
        child = mutate(list(parent), rng)
        _check_genotype(child)
        assert child != parent


def test_mutation_moves_every_int_gene_and_reaches_every_enum_choice() -> None:
    rng = random.Random(2)
    seen: dict[str, set[Any]] = {spec.name: set() for spec in GENES}
    for _ in range(600):
        child = mutate(encode(Genome()), rng, indpb=0.5)
        for spec, value in zip(GENES, child, strict=True):
            seen[spec.name].add(value)
    for spec in GENES:
        if spec.kind == "enum":
            assert seen[spec.name] == set(spec.choices)
        else:
            assert len(seen[spec.name]) > 1, spec.name


def test_crossover_respects_types_and_bounds_and_mixes() -> None:
    rng = random.Random(3)
    mixed = 0
    for _ in range(300):
        a, b = random_genotype(rng), random_genotype(rng)
        c, d = crossover(list(a), list(b), rng)
        _check_genotype(c)
        _check_genotype(d)
        mixed += c not in (a, b)
    assert mixed > 100


def test_numeric_operators_stay_in_bounds_at_the_edges() -> None:
    rng = random.Random(4)
    for _ in range(500):
        assert 1.0 <= polynomial_mutation(1.0, 1.0, 4.0, rng) <= 4.0
        assert 1.0 <= polynomial_mutation(4.0, 1.0, 4.0, rng) <= 4.0
        c1, c2 = sbx_pair(0.0, 0.6, 0.0, 0.6, rng)
        assert 0.0 <= c1 <= 0.6 and 0.0 <= c2 <= 0.6


def test_operators_are_deterministic_and_leave_global_random_alone() -> None:
    def sequence(seed: int) -> list[Any]:
        rng = random.Random(seed)
        out = []
        for _ in range(50):
            a, b = crossover(random_genotype(rng), random_genotype(rng), rng)
            out += [mutate(a, rng), mutate(b, rng)]
        return out

    random.seed(99)
    before = random.getstate()
    assert sequence(7) == sequence(7)
    assert sequence(7) != sequence(8)
    assert random.getstate() == before


# --------------------------------------------------------------------------- gate


def test_gate_passes_on_accuracy_and_picks_the_highest_score() -> None:
    trials = _archive((0.80, 100), (0.86, 120), (0.90, 110), (0.81, 100))
    result = judge(trials, trials[0])
    assert result.passed and result.winner is trials[2] and result.claims == ("accuracy",)


def test_gate_refuses_an_accuracy_regression_even_with_a_higher_score() -> None:
    # #1 is far cheaper (higher score) but loses a point of accuracy.
    trials = _archive((0.80, 100), (0.79, 10), (0.85, 100))
    assert candidates(trials, trials[0]) == [trials[2]]
    assert trials[1].score > trials[2].score
    assert judge(trials, trials[0]).winner is trials[2]


def test_gate_fails_when_gains_are_too_small() -> None:
    trials = _archive((0.80, 100), (0.84, 90), (0.80, 85))
    result = judge(trials, trials[0], lambda g: _check(0.5))
    assert not result.passed and result.winner is None
    assert evaluations_to_gate(trials, trials[0]) is None


def _check(*ratios: float) -> LatencyCheck:
    """A re-timing whose repeats gave these paired ratios (one value: nine equal repeats)."""
    return LatencyCheck(ratios if len(ratios) > 1 else ratios * 9, 10.0, 10.0 * ratios[0])


def test_gate_decides_on_work_and_latency_only_confirms_or_vetoes() -> None:
    # #1 cuts work 50% (highest score), #2 gains 10 points of accuracy.
    trials = _archive((0.80, 100), (0.80, 50), (0.90, 100))
    assert trials[1].score > trials[2].score
    timed: list[Genome] = []

    def confirm(*ratios: float) -> Any:
        def check(genome: Genome) -> LatencyCheck:
            timed.append(genome)
            return _check(*ratios)

        return check

    confirmed = judge(trials, trials[0], confirm(0.6))
    assert confirmed.passed and confirmed.winner is trials[1] and confirmed.claims == ("work",)
    assert confirmed.latency is not None and confirmed.latency.verdict == "confirmed"
    assert timed == [trials[1].genome]
    # An interval straddling 0.8 is unclear: the decision on work stands.
    unclear = judge(trials, trials[0], confirm(0.7, 0.75, 0.78, 0.8, 0.82, 0.85, 0.9))
    assert unclear.latency is not None and unclear.latency.verdict == "unclear"
    assert unclear.winner is trials[1] and unclear.claims == ("work",)
    # Short of the claim but not slower is unclear too: the decision stands.
    short = judge(trials, trials[0], confirm(0.85, 0.9, 0.95))
    assert short.latency is not None and short.latency.verdict == "unclear"
    assert short.winner is trials[1]
    # An interval wholly above parity (slower, for less work) vetoes the work
    # claim: the next candidate wins.
    vetoed = judge(trials, trials[0], confirm(1.05, 1.1, 1.15))
    assert vetoed.winner is trials[2] and vetoed.claims == ("accuracy",)
    assert "vetoed" in vetoed.decisions[0] and "passes on accuracy" in vetoed.decisions[1]
    # Without re-timing, the deterministic decision stands unmeasured.
    unmeasured = judge(trials, trials[0], None)
    assert unmeasured.winner is trials[1] and unmeasured.latency is None
    assert evaluations_to_gate(trials, trials[0]) == 2


def test_latency_interval_and_verdicts() -> None:
    from mragent.evolution.stats import median_interval, sign_test

    # Nine repeats: the 2nd to 8th order statistics cover the median at 96.1%.
    low, high, confidence = median_interval([9, 1, 8, 2, 7, 3, 6, 4, 5])
    assert (low, high) == (2, 8) and confidence == pytest.approx(1 - 2 * 10 / 512)
    # Five repeats cannot reach 95%: the range, at the confidence it has.
    assert median_interval([5, 1, 3, 2, 4]) == (1, 5, pytest.approx(1 - 2 / 32))
    assert sign_test(5, 0) == pytest.approx(1 / 32) and sign_test(0, 0) == 1.0
    assert sign_test(4, 1) == pytest.approx(6 / 32)
    assert _check(0.79).verdict == "confirmed" and _check(1.01).verdict == "refuted"
    # Short of the claim but not slower: unclear, so run-to-run noise around the
    # claimed ratio cannot veto a decision in one run and keep it in the next.
    assert _check(0.81).verdict == "unclear" and _check(0.99).verdict == "unclear"
    assert _check(0.5, 0.9).verdict == "unclear"


def test_pareto_front() -> None:
    trials = _archive((0.5, 100), (1.0, 100), (0.5, 50), (0.4, 150))
    assert dominates(trials[1].values, trials[0].values)
    assert pareto_front(trials) == [trials[1], trials[2]]


# --------------------------------------------------------------------------- split


def _questions(n: int) -> list[Question]:
    kinds = ("direct", "bridge-2", "bridge-3")
    return [Question(f"q{i}", f"question {i}?", ("x",), kind=kinds[i % 3]) for i in range(n)]


def test_split_is_deterministic_stratified_and_validated() -> None:
    questions = _questions(30)
    train, held = split_questions(questions, "0.3", seed=5)
    assert (train, held) == split_questions(questions, "0.3", seed=5)
    assert held != split_questions(questions, "0.3", seed=6)[1]
    assert len(held) == 9 and {q.kind for q in held} == {"direct", "bridge-2", "bridge-3"}
    assert not {q.id for q in train} & {q.id for q in held}
    assert split_questions(questions, "0", seed=5) == (questions, [])
    _, by_id = split_questions(questions, "q3, q7", seed=5)
    assert [q.id for q in by_id] == ["q3", "q7"]
    for bad in ("q3,nope", "1.0", "-0.1", ","):
        with pytest.raises(ConfigError):
            split_questions(questions, bad, seed=5)


# --------------------------------------------------------------------------- study


def test_study_validates_arguments() -> None:
    bad: tuple[dict[str, Any], ...] = (
        {"population": 3},
        {"generations": -1},
        {"crossover_prob": 1.5},
        {"offspring": -1},
    )
    for kwargs in bad:
        with pytest.raises(ValueError):
            Study(_fake_evaluate, **kwargs)


def test_study_resumes_exactly_from_its_state() -> None:
    full = Study(_fake_evaluate, population=8, generations=4, seed=3)
    full.optimize()
    first = Study(_fake_evaluate, population=8, generations=2, seed=3)
    first.optimize()
    state = json.loads(json.dumps(first.state()))
    resumed = Study(_fake_evaluate, population=8, generations=4, seed=3)
    resumed.restore(state)
    resumed.optimize()
    assert [(t.genome, t.values) for t in resumed.trials] == [
        (t.genome, t.values) for t in full.trials
    ]
    assert resumed.population == full.population
    assert list(resumed.logbook) == list(full.logbook)
    baseline = full.trials[0]
    assert baseline.genome == PRESETS["default"]
    assert baseline.score == pytest.approx(0.7 * baseline.evaluation.accuracy)


def _costly_tradeoff(genomes: list[Genome]) -> list[Evaluation]:
    """Accuracy bought with work: every genome on one front, most beyond twice the default's."""
    out = []
    for g in genomes:
        work = float(g.efSearch * g.tagFanout * g.traversalDepth)
        out.append(_evaluation(round(work / (work + 600.0), 4), work, tokens=10.0, hops=2.0))
    return out


def test_selection_keeps_genomes_inside_the_hypervolume_box_when_it_can() -> None:
    from mragent.evolution.hypervolume import overshoot

    study = Study(_costly_tradeoff, population=8, generations=4, seed=5)
    study.optimize()
    base = study.baseline_trial.evaluation
    archive = {t.genome: t for t in study.trials}
    inside = [t for t in study.trials if overshoot(t, base) < 0]
    outside = [t for t in study.trials if overshoot(t, base) >= 0]
    assert len(inside) >= 8 and outside  # the box binds, and NSGA-II alone keeps extremes
    assert all(overshoot(archive[g], base) < 0 for g in study.population)
    # With fewer feasible genomes than places, the nearest infeasible ones fill the rest.
    pool = [inside[0].genome, *(t.genome for t in outside)]
    nearest = sorted(outside, key=lambda t: (overshoot(t, base), t.number))[:3]
    assert study._select(pool, 4) == [inside[0].genome, *(t.genome for t in nearest)]


def test_proposer_genomes_are_validated_and_injected() -> None:
    class Proposer:
        def propose(self, context: ProposalContext) -> list[dict[str, Any]]:
            assert context.best.evaluation is not None
            return [{"cueK": 12, "traversalDepth": 4}, {"cueK": 99}]

    study = Study(_fake_evaluate, population=6, generations=1, seed=0, proposer=Proposer())
    study.optimize()
    proposed = [t for t in study.trials if t.origin == "proposer"]
    assert [t.genome for t in proposed] == [Genome(cueK=12, traversalDepth=4)]
    assert study.logbook[-1]["proposed"] == 1 and study.logbook[-1]["rejected"] == 1


def test_a_generation_breeds_the_offspring_asked_for_beside_the_proposals() -> None:
    class Proposer:
        def propose(self, context: ProposalContext) -> list[dict[str, Any]]:
            return [{"cueK": 2 + context.generation}]

    for offspring in (0, 3, 8):
        study = Study(
            _fake_evaluate, population=8, generations=2, seed=4, offspring=offspring,
            proposer=Proposer(), proposals=1,
        )  # fmt: skip
        study.optimize()
        for generation in (1, 2):
            bred = [t for t in study.trials if t.generation == generation]
            assert [t.origin for t in bred].count("proposer") == 1
            # Children that repeat a genome already evaluated are not evaluated again.
            assert len(bred) - 1 <= offspring
        if offspring == 0:
            assert all(t.origin in ("baseline", "seed", "random", "proposer") for t in study.trials)
        else:
            assert any(t.origin == "offspring" for t in study.trials)


def test_random_search_spends_exactly_its_budget() -> None:
    trials = random_search(_fake_evaluate, budget=9, seed=1, seeds=[PRESETS["fast"]], batch=4)
    assert len(trials) == len({t.genome for t in trials}) == 9
    assert [t.origin for t in trials[:2]] == ["baseline", "seed"]


# --------------------------------------------------------------------------- real runs

FIRMS = ["Veltrane Works", "Orsk Foundry", "Pellam Mills", "Quarry Hale", "Sedgeway Looms"]
PEOPLE = ["Ada Brennick", "Cyrus Dellow", "Edda Fenwick", "Gideon Harlow", "Isolde Jarrow"]
TOWNS = ["Ashcombe", "Brindle", "Corvale", "Dunmere", "Elsby"]
RIVERS = ["Orlen", "Tamsey", "Wend", "Callow", "Ysse"]


def _write_corpus(path: Path) -> Path:
    """Founder -> birthplace -> river chains: direct, two- and three-hop questions."""
    contents: list[dict[str, Any]] = []
    questions: list[dict[str, Any]] = []
    for i, (firm, person, town, river) in enumerate(zip(FIRMS, PEOPLE, TOWNS, RIVERS, strict=True)):
        contents += [
            {
                "id": f"f{i}",
                "title": firm,
                "text": f"{firm} makes bells. It was founded by {person}.",
            },
            {"id": f"p{i}", "title": person, "text": f"{person} was born in {town}."},
            {"id": f"t{i}", "title": town, "text": f"{town} lies on the {river} river."},
        ]
        questions += [
            {"id": f"d{i}", "question": f"Who founded {firm}?", "answer": person, "kind": "direct"},
            {
                "id": f"b{i}",
                "question": f"Where was the founder of {firm} born?",
                "answer": town,
                "kind": "bridge-2",
            },
            {
                "id": f"r{i}",
                "question": f"Which river flows through the birthplace of the founder of {firm}?",
                "answer": river,
                "kind": "bridge-3",
            },
        ]
    data = {"format": "mragent-corpus/1", "contents": contents, "questions": questions}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def falkor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GraphStore]:
    """A FalkorDB server of this module's own, in a temporary MRAGENT_HOME."""
    home = tmp_path_factory.mktemp("evolve-home")
    server = embedded.ensure_running(home)
    store = FalkorStore("127.0.0.1", server.port, password=server.password)
    try:
        yield store
    finally:
        store.close()
        embedded.stop(home)


@pytest.fixture(scope="module")
def corpus_path(falkor: GraphStore, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = _write_corpus(tmp_path_factory.mktemp("corpus") / "chains.json")
    ensure_ingested(falkor, load_corpus(path), "evolve-test")
    return path


def _run(store: GraphStore, corpus: Path, out: Path, **overrides: Any) -> EvolveRun:
    options = dict(
        corpus_path=corpus,
        ns="evolve-test",
        worker_url=store.secret_url,
        generations=3,
        population=6,
        seed=11,
        out_dir=out,
    )
    options.update(overrides)
    return run_evolve(store, load_corpus(corpus), EvolveOptions(**options))


def _winner(run: EvolveRun) -> int | None:
    return run.gate.winner.number if run.gate.winner else None


def _decision(run: EvolveRun) -> tuple[Any, ...]:
    """What the gate decided: on training questions, and on held-out ones."""
    held = (run.held_out.holds, run.held_out.claims) if run.held_out else None
    return run.gate.passed, _winner(run), run.gate.claims, held, run.exit_code


def _fingerprint(run: EvolveRun) -> list[tuple[Any, ...]]:
    return [(t.number, t.origin, t.genome, t.values, t.score) for t in run.study.trials]


def test_real_run_is_reproducible_and_reports(
    falkor: GraphStore, corpus_path: Path, tmp_path: Path
) -> None:
    first = _run(falkor, corpus_path, tmp_path / "a")
    second = _run(falkor, corpus_path, tmp_path / "b")
    assert len(first.study.trials) > 6
    assert _fingerprint(first) == _fingerprint(second)
    assert _decision(first) == _decision(second)
    assert first.gate.passed and "accuracy" in first.gate.claims
    assert first.held_out is not None and len(first.held_out.questions) == 5
    assert first.exit_code == 0

    paths = write_reports(first)
    assert all(p.exists() for p in paths)
    report = json.loads((tmp_path / "a" / REPORT_JSON).read_text())
    assert load_genome(str(tmp_path / "a" / REPORT_JSON)) == first.gate.winner.genome
    assert report["baseline"]["genome"] == Genome().to_json_dict()
    assert first.baseline_name == "default"
    assert report["gate"]["passed"] and report["held_out"]["gate_holds"] in (True, False)
    assert report["logbook"][-1]["gen"] == 3 and report["corpus"]["sha256"]
    assert len(report["archive"]) == len(first.study.trials)
    assert "Gate passed" in (tmp_path / "a" / REPORT_MD).read_text()


def test_a_chosen_baseline_starts_the_search_and_the_presets_can_stay_out(
    falkor: GraphStore, corpus_path: Path, tmp_path: Path
) -> None:
    chosen = _run(falkor, corpus_path, tmp_path / "a", generations=1, baseline="deep")
    assert chosen.study.baseline_trial.genome == PRESETS["deep"]
    assert chosen.baseline_name == "deep"  # what the plot and the reports call it
    assert chosen.study.trials[0].origin == "baseline"
    # The other presets (as the searched genes see them) seed the first generation.
    assert sum(t.origin == "seed" for t in chosen.study.trials) == len(PRESETS) - 1
    held = chosen.held_out  # judged against the chosen baseline, not the default
    assert held is not None
    memory = MemoryReader(falkor, "evolve-test")
    deep, default = (
        evaluate_genome(memory, held.questions, g) for g in (PRESETS["deep"], Genome())
    )
    assert held.baseline.work == deep.work != default.work
    report = build_report(chosen)
    assert report["baseline"]["source"] == "deep"
    assert report["baseline"]["genome"] == PRESETS["deep"].to_json_dict()

    alone = _run(
        falkor, corpus_path, tmp_path / "b", generations=1, baseline="deep", preset_seeds=False
    )
    assert not any(t.origin == "seed" for t in alone.study.trials)
    assert build_report(alone)["baseline"]["preset_seeds"] is False
    # A checkpoint of one is not resumed by the other, nor by a run from the default.
    stamps = [fingerprint(r.options, "", r.train, r.study.baseline) for r in (chosen, alone)]
    assert stamps[0]["baseline"] == stamps[1]["baseline"] == PRESETS["deep"].to_json_dict()
    assert "preset_seeds" not in stamps[0] and stamps[1]["preset_seeds"] is False


def test_a_baseline_that_is_no_genome_is_refused_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="neither a preset"):
        EvolveOptions(corpus_path=tmp_path / "c.json", ns="x", baseline="no-such-genome")


BLEND = ("passageWeight", "bridgeWeight", "graphWeight")


def test_extended_genes_search_the_blend_weights_and_core_keeps_them(
    falkor: GraphStore, corpus_path: Path, tmp_path: Path
) -> None:
    core = _run(falkor, corpus_path, tmp_path / "core", generations=1)
    extended = _run(falkor, corpus_path, tmp_path / "ext", generations=1, gene_set=GeneSet.EXTENDED)
    default = {name: Genome().to_json_dict()[name] for name in BLEND}
    assert all({n: t.params[n] for n in BLEND} == default for t in core.study.trials)
    varied = {n for t in extended.study.trials for n in BLEND if t.params[n] != default[n]}
    assert varied == set(BLEND)
    assert {s.name for s in extended.study.genes} >= set(BLEND)
    stamps = [fingerprint(r.options, "", r.train, r.study.baseline) for r in (core, extended)]
    assert "genes" not in stamps[0] and stamps[1]["genes"] == "extended"


def test_a_decision_resting_on_latency_is_the_same_in_every_run(
    falkor: GraphStore, corpus_path: Path, tmp_path: Path
) -> None:
    # Direct questions only: the default genome answers them all, so no variant can
    # gain accuracy and the gate can pass only on work, re-timed against the baseline.
    data = json.loads(corpus_path.read_text())
    data["questions"] = [q for q in data["questions"] if q["kind"] == "direct"]
    direct = tmp_path / "direct.json"
    direct.write_text(json.dumps(data))
    runs = [_run(falkor, direct, tmp_path / f"run{i}", split="0", generations=2) for i in range(2)]
    assert runs[0].study.baseline_trial.evaluation.accuracy == 1.0
    assert _decision(runs[0]) == _decision(runs[1])
    assert runs[0].gate.passed and runs[0].gate.claims == ("work",)
    for run in runs:  # measured every time; its verdict may vary, the decision does not
        assert run.gate.latency is not None and len(run.gate.latency.ratios) == 5 * 5
        assert run.gate.latency.verdict in ("confirmed", "unclear")


def _deterministic_archive(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The archive of a report without its measured (wall-time) fields."""
    return [
        {**t, "evaluation": {k: v for k, v in t["evaluation"].items() if "latency" not in k}}
        for t in report["archive"]
    ]


def test_separate_processes_decide_alike(
    falkor: GraphStore, corpus_path: Path, tmp_path: Path
) -> None:
    # Two `mragent evolve` processes with different string-hash seeds: nothing that
    # decides may hang on the per-process order of a set.
    reports = []
    for hash_seed in ("1", "2"):
        out = tmp_path / f"hash{hash_seed}"
        args = ["evolve", "--corpus", str(corpus_path), "--db", falkor.secret_url]
        args += ["--ns", "evolve-test", "--out", str(out), "--generations", "2"]
        args += ["--population", "6", "--seed", "11"]
        subprocess.run(
            [sys.executable, "-c", "from mragent.cli import main; main()", *args],
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
            capture_output=True,
            check=False,
            timeout=600,
        )
        reports.append(json.loads((out / REPORT_JSON).read_text()))
    first, second = (_deterministic_archive(r) for r in reports)
    assert first == second and len(first) > 6
    first, second = reports
    for key in ("passed", "winner", "claims"):
        assert first["gate"][key] == second["gate"][key]
    assert first["held_out"]["gate_holds"] == second["held_out"]["gate_holds"]


def test_parallel_workers_give_the_serial_archive(
    falkor: GraphStore, corpus_path: Path, tmp_path: Path
) -> None:
    from distributed import LocalCluster

    serial = _run(falkor, corpus_path, tmp_path / "one", generations=1)
    parallel = _run(falkor, corpus_path, tmp_path / "two", generations=1, workers=2)
    assert _fingerprint(parallel) == _fingerprint(serial)
    # An existing cluster, reached by its scheduler's address (as on other machines).
    with LocalCluster(
        n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        remote = _run(
            falkor,
            corpus_path,
            tmp_path / "three",
            generations=1,
            scheduler=cluster.scheduler_address,
        )
    assert _fingerprint(remote) == _fingerprint(serial)


def test_dask_workers_each_open_their_own_connection(falkor: GraphStore, corpus_path: Path) -> None:
    from mragent.evolution.distributed import DaskPool

    questions = load_corpus(corpus_path).questions
    genomes = [*PRESETS.values(), *(Genome(cueK=k, maxContent=m) for k in (2, 3) for m in (3, 6))]
    memory = MemoryReader(falkor, "evolve-test")
    serial = [evaluate_genome(memory, questions, g) for g in genomes]
    embedded = Questions.embedded(memory, questions)
    pool = DaskPool(falkor.secret_url, "evolve-test", embedded, workers=2)
    plugin = pool.plugin
    everything = tuple(range(len(questions)))

    def connection(dask_worker: Any) -> tuple[int, int] | None:
        store = dask_worker.plugins[plugin]._store
        return None if store is None else (os.getpid(), id(store))

    try:
        assert pool.workers == 2
        judged = pool.map([(g, everything) for g in genomes], [EvaluationPolicy()] * len(genomes))
        opened = pool.client.run(connection)
    finally:
        pool.close()
    parallel = [evaluation_from([j.results[i] for i in everything]) for j in judged]
    assert [e.values for e in parallel] == [e.values for e in serial]
    assert [e.failures for e in parallel] == [e.failures for e in serial]
    # Both worker processes evaluated, each through a connection it opened itself.
    assert len(opened) == 2 and None not in opened.values()
    assert len({pid for pid, _ in opened.values()} | {os.getpid()}) == 3


def test_resume_after_interrupt_equals_an_unbroken_run(
    falkor: GraphStore, corpus_path: Path, tmp_path: Path
) -> None:
    unbroken = _run(falkor, corpus_path, tmp_path / "full", compare=True, compare_seeds=2)

    def interrupt(study: Study) -> None:
        if study.generation == 1:
            raise KeyboardInterrupt

    options = dict(
        corpus_path=corpus_path,
        ns="evolve-test",
        generations=3,
        population=6,
        seed=11,
        out_dir=tmp_path / "cut",
        retime_repeats=2,
    )
    with pytest.raises(KeyboardInterrupt):
        run_evolve(
            falkor, load_corpus(corpus_path), EvolveOptions(**options), on_generation=interrupt
        )
    saved = json.loads(checkpoint_path(tmp_path / "cut").read_text())
    assert saved["generation"] == 1 and saved["elapsed_s"] > 0
    resumed = _run(
        falkor, corpus_path, tmp_path / "cut", resume=True, compare=True, compare_seeds=2
    )
    assert resumed.elapsed_s > saved["elapsed_s"]  # the whole search, not the last session
    assert _fingerprint(resumed) == _fingerprint(unbroken)
    assert list(resumed.study.logbook) == list(unbroken.study.logbook)
    assert _winner(resumed) == _winner(unbroken)
    assert resumed.comparison is not None and unbroken.comparison is not None
    assert resumed.comparison.to_dict() == unbroken.comparison.to_dict()
    for seed in (11, 12):  # every method spent NSGA-II's budget (NSGA-III cut there)
        budget = len(unbroken.comparison.run("nsga2", seed).trials)
        assert {len(r.trials) for r in unbroken.comparison.runs if r.seed == seed} == {budget}


def test_corrupt_checkpoint_is_moved_aside_with_an_error(tmp_path: Path) -> None:
    path = checkpoint_path(tmp_path)
    study = Study(_fake_evaluate, population=4, generations=1)
    broken_archive = json.dumps(
        {"format": "mragent-evolve-checkpoint/1", "run": {}, "archive": [{"genome": {}}]}
    )
    cases = ('{"format": "mragent-evolve-checkpoint/1", "run"', "[]", broken_archive)
    for n, garbage in enumerate(cases, 1):
        path.write_text(garbage)
        with pytest.raises(CheckpointError, match="corrupt checkpoint"):
            load_checkpoint(path, study, {})
        assert not path.exists()
        assert path.with_name(f"checkpoint.json.corrupt-{n}").read_text() == garbage
    assert study.generation == -1 and not study.trials  # nothing half-restored


def test_checkpoint_of_another_run_is_refused_and_kept(tmp_path: Path) -> None:
    study = Study(_fake_evaluate, population=4, generations=1, seed=1)
    study.optimize()
    path = checkpoint_path(tmp_path)
    from mragent.evolution.checkpoint import save_checkpoint

    save_checkpoint(path, study, {"seed": 1})
    with pytest.raises(ConfigError, match="another run"):
        load_checkpoint(path, Study(_fake_evaluate, population=4, seed=2), {"seed": 2})
    assert path.exists()


def test_cli_exit_codes(falkor: GraphStore, corpus_path: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mragent.cli.app import app

    runner = CliRunner()
    url = falkor.secret_url
    args = ["evolve", "--corpus", str(corpus_path), "--db", url, "--ns", "evolve-test"]
    out = tmp_path / "cli"
    result = runner.invoke(
        app, [*args, "--out", str(out), "--generations", "0", "--population", "4"]
    )
    report = json.loads((out / REPORT_JSON).read_text())
    assert result.exit_code == (0 if report["gate"]["passed"] else EXIT_GATE_FAILED)
    assert (out / "pareto.png").stat().st_size > 1000

    checkpoint_path(out).write_text("{not json")
    result = runner.invoke(app, [*args, "--out", str(out), "--resume"])
    assert result.exit_code == 2
    assert (out / "checkpoint.json.corrupt-1").exists()
    help_text = " ".join(runner.invoke(app, ["evolve", "--help"]).output.split())
    assert "3 no variant passed" in help_text and "--genes" in help_text
    assert runner.invoke(app, [*args, "--out", str(out), "--genes", "all"]).exit_code == 2
