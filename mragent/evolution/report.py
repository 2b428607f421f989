"""Reports of a run: ``optimize.report.json``, ``optimize.report.md``, ``pareto.png``.

Each file is written atomically. The JSON's ``evolved.genome`` is what
:func:`mragent.core.genome.load_genome` reads from a report: the gate's winner, or
the baseline when the gate failed (the baseline stands).
"""

from __future__ import annotations

import os
import platform
import re
from importlib import metadata
from pathlib import Path
from typing import Any

from mragent.apps.bench import write_json_atomic
from mragent.apps.explain import build_trace
from mragent.apps.html_view import write_html
from mragent.core.corpus import Question
from mragent.core.store import open_store
from mragent.evolution.compare import REFERENCE_COST, search_figures
from mragent.evolution.objectives import SCORE_POLICY, objectives_named
from mragent.evolution.plot import plot_pareto
from mragent.evolution.report_markdown import render_markdown
from mragent.evolution.run import EvolveRun, HeldOut
from mragent.evolution.trial import Evaluation, Trial
from mragent.memory.reader import Memory

REPORT_JSON, REPORT_MD, PARETO_PNG = "optimize.report.json", "optimize.report.md", "pareto.png"
EXPLAIN_DIR, EXPLAIN_QUESTIONS = "explain", 3


def package_versions() -> dict[str, str]:
    """Versions of Python and the packages a result depends on."""
    versions = {"python": platform.python_version()}
    for name in ("mragent", "deap", "numpy", "falkordb", "neo4j"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed (source tree)"
    return versions


def _side(genome_trial: Trial, held: Evaluation | None) -> dict[str, Any]:
    return {
        "genome": genome_trial.params,
        "trial": genome_trial.number,
        "score": genome_trial.score,
        "train": genome_trial.evaluation.to_dict(),
        "held_out": held.to_dict() if held else None,
    }


def _figures(e: Evaluation) -> dict[str, float | None]:
    """The headline figures of one side: recall@k (when measured) and accuracy, in %."""
    figures: dict[str, float | None] = {f"R@{k}": 100 * v for k, v in e.recall}
    figures.update(accuracy=100 * e.accuracy, em=_percent(e.em), f1=_percent(e.f1))
    return figures


def _percent(x: float | None) -> float | None:
    return None if x is None else 100 * x


def build_report(run: EvolveRun) -> dict[str, Any]:
    """The JSON document of a run."""
    study, gate, held = run.study, run.gate, run.held_out
    base = study.baseline_trial
    evolved_trial = gate.winner or base
    evolved = _side(evolved_trial, held.variant if held and gate.winner else None)
    if held and not gate.winner:
        evolved["held_out"] = held.baseline.to_dict()
    evolved.update(
        source="gate winner" if gate.passed else "baseline (no variant passed the gate)",
        claims=list(gate.claims),
    )
    best = study.best_trial
    report: dict[str, Any] = {
        "format": "mragent-evolve-report/1",
        "gate": {**gate.to_dict(), "exit_code": run.exit_code},
        "baseline": _side(base, held.baseline if held else None),
        "evolved": evolved,
        "best_found": _side(best, held.variant if held and best == run.chosen else None),
        "held_out": _held_out_section(held, gate.winner is not None) if held else None,
        "split": {"spec": run.options.split, "train": [q.id for q in run.train]},
        "objective": run.options.objective,
        "objectives": objectives_named(run.options.objective).directions(),
        "gene_ranges": [
            {"gene": name, "low": low, "high": high} for name, low, high in run.options.gene_ranges
        ],
        "time_cap_s": run.options.time_cap_s,
        "timed_out": [t.number for t in study.trials if t.evaluation.timed_out],
        "score_policy": SCORE_POLICY,
        "pareto_front": [t.to_dict() for t in study.pareto_front],
        "archive": [t.to_dict() for t in study.trials],
        "logbook": [dict(entry) for entry in study.logbook],
        "search": _search_section(run),
        "compare_random": _compare_random_section(run) if run.random_trials else None,
        "engine": {"name": run.engine, "version": run.engine_version},
        "corpus": {
            "path": str(run.options.corpus_path),
            "sha256": run.corpus_sha256,
            "questions": len(run.train) + (len(held.questions) if held else 0),
        },
        "namespace": run.options.ns,
        "versions": package_versions(),
    }
    return report


def _held_out_section(held: HeldOut, has_winner: bool) -> dict[str, Any]:
    return {
        "questions": [q.id for q in held.questions],
        "variant": "gate winner" if has_winner else "best found (gate failed on train)",
        "gate_holds": held.holds,
        "claims": held.claims,
        "latency": held.latency.to_dict() if held.latency else None,
        "figures": {
            "baseline": _figures(held.baseline),
            "evolved": _figures(held.variant),
        },
    }


def _search_section(run: EvolveRun) -> dict[str, Any]:
    return {
        "algorithm": "NSGA-II (deap.tools.selNSGA2), binary tournament on dominance, "
        "crowding, score; SBX + polynomial mutation (numeric), uniform + random choice (enum)",
        "population": run.options.population,
        "generations": run.options.generations,
        "generations_completed": run.study.generation,
        "evaluations": len(run.study.trials),
        "seed": run.options.seed,
        "workers": run.options.workers,
        "elapsed_s": run.elapsed_s,
    }


def _compare_random_section(run: EvolveRun) -> dict[str, Any]:
    return {
        "hypervolume": f"exact 2-D: accuracy (max) vs work/baseline work (min), "
        f"reference (accuracy 0, cost {REFERENCE_COST:g}x baseline), normalised to [0,1]",
        "evaluations_to_gate": "1-based evaluation at which the first gate candidate "
        "appeared (latency claims on the work count, unconfirmed)",
        "nsga2": search_figures(run.study.trials, run.study.baseline_trial),
        "random": search_figures(run.random_trials, run.random_trials[0]),
    }


def newly_answered(run: EvolveRun) -> list[Question]:
    """Questions the baseline got wrong and the chosen genome right (held-out first)."""
    sides = [(run.train, run.study.baseline_trial.evaluation, run.chosen.evaluation)]
    if run.held_out:
        held = run.held_out
        sides.insert(0, (held.questions, held.baseline, held.variant))
    found = []
    for questions, base, variant in sides:
        wrong = {qid for qid, _ in base.failures} - {qid for qid, _ in variant.failures}
        found += [q for q in questions if q.id in wrong]
    return found[:EXPLAIN_QUESTIONS]


def write_explain_views(
    run: EvolveRun, failures: list[dict[str, str]] | None = None
) -> list[tuple[Question, str]]:
    """``explain/<qid>.html`` for a few newly answered questions; (question, relative href).

    Args:
        run: The finished run.
        failures: Receives ``{"question", "error"}`` for each page that could not
            be drawn; the page is skipped, so an illustration never costs a
            finished search its report.
    """
    questions = newly_answered(run)
    if not questions or not run.options.worker_url:
        return []
    views = []
    with open_store(run.options.worker_url) as store:
        memory = Memory(store, run.options.ns)
        for q in questions:
            href = f"{EXPLAIN_DIR}/{re.sub(r'[^A-Za-z0-9_.-]', '_', q.id)}.html"
            trace = build_trace(memory, q.question, run.chosen.genome)
            try:
                write_html(trace, run.options.out_dir / href)
            # pyvis asserts that both ends of an edge were drawn as nodes.
            except (AssertionError, KeyError, ValueError) as exc:
                if failures is None:
                    raise
                failures.append({"question": q.id, "error": f"{type(exc).__name__}: {exc}"})
                continue
            views.append((q, href))
    return views


def write_reports(run: EvolveRun) -> list[Path]:
    """Write the JSON, Markdown, plot and explain pages into the run's output directory."""
    out = run.options.out_dir
    report = build_report(run)
    failed: list[dict[str, str]] = []
    views = write_explain_views(run, failed)
    report["explain_views"] = [{"question": q.id, "html": href} for q, href in views]
    report["explain_views_failed"] = failed
    json_path, md_path, png_path = out / REPORT_JSON, out / REPORT_MD, out / PARETO_PNG
    write_json_atomic(json_path, report)
    tmp = md_path.with_name(f".{md_path.name}.tmp")
    tmp.write_text(render_markdown(run, report, views), encoding="utf-8")
    os.replace(tmp, md_path)
    plot_pareto(
        png_path,
        run.study.trials,
        run.study.baseline_trial,
        run.gate.winner,
        run.random_trials,
        title=f"{run.options.corpus_path.name}: accuracy vs cost ({len(run.study.trials)} genomes)",
    )
    return [json_path, md_path, png_path, *(out / href for _, href in views)]
