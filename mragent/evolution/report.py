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
from mragent.core.genome import GENES
from mragent.core.store import open_store
from mragent.evolution.compare import REFERENCE_COST, search_figures
from mragent.evolution.objectives import RECALL_K, objectives_named
from mragent.evolution.plot import plot_pareto
from mragent.evolution.run import EvolveRun
from mragent.evolution.trial import Evaluation, Trial
from mragent.memory.reader import Memory

REPORT_JSON, REPORT_MD, PARETO_PNG = "optimize.report.json", "optimize.report.md", "pareto.png"
EXPLAIN_DIR, EXPLAIN_QUESTIONS = "explain", 3
SCORE_POLICY = (
    "0.70*quality + 0.15*(1-work/BASE_work) + 0.10*(1-ctx/BASE_ctx) + 0.05*(1-hops/BASE_hops), "
    "terms clamped to [0,1]; quality = accuracy (accuracy objective) or "
    f"(recall@{RECALL_K} + accuracy)/2 (recall objective); BASE = default genome on the "
    "training questions; inside the search the deterministic work count stands in for latency; "
    "a timed-out genome scores 0"
)


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


def _figures(e: Evaluation) -> dict[str, float]:
    """The headline figures of one side: recall@k (when measured) and accuracy, in %."""
    figures = {f"R@{k}": 100 * v for k, v in e.recall}
    figures.update(accuracy=100 * e.accuracy, em=100 * e.em, f1=100 * e.f1)
    return figures


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
        "held_out": {
            "questions": [q.id for q in held.questions],
            "variant": "gate winner" if gate.winner else "best found (gate failed on train)",
            "gate_holds": held.holds,
            "claims": held.claims,
            "latency": held.latency.to_dict() if held.latency else None,
            "figures": {
                "baseline": _figures(held.baseline),
                "evolved": _figures(held.variant),
            },
        }
        if held
        else None,
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
        "search": {
            "algorithm": "NSGA-II (deap.tools.selNSGA2), binary tournament on dominance, "
            "crowding, score; SBX + polynomial mutation (numeric), uniform + random choice (enum)",
            "population": run.options.population,
            "generations": run.options.generations,
            "generations_completed": study.generation,
            "evaluations": len(study.trials),
            "seed": run.options.seed,
            "workers": run.options.workers,
            "elapsed_s": run.elapsed_s,
        },
        "compare_random": None,
        "engine": {"name": run.engine, "version": run.engine_version},
        "corpus": {
            "path": str(run.options.corpus_path),
            "sha256": run.corpus_sha256,
            "questions": len(run.train) + (len(held.questions) if held else 0),
        },
        "namespace": run.options.ns,
        "versions": package_versions(),
    }
    if run.random_trials:
        report["compare_random"] = {
            "hypervolume": f"exact 2-D: accuracy (max) vs work/baseline work (min), "
            f"reference (accuracy 0, cost {REFERENCE_COST:g}x baseline), normalised to [0,1]",
            "evaluations_to_gate": "1-based evaluation at which the first gate candidate "
            "appeared (latency claims on the work count, unconfirmed)",
            "nsga2": search_figures(study.trials, base),
            "random": search_figures(run.random_trials, run.random_trials[0]),
        }
    return report


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _metrics_table(rows: list[tuple[str, Evaluation | None]]) -> list[str]:
    shown = [(name, e) for name, e in rows if e is not None]
    # Recall columns only where gold supporting passages were measured.
    ks = sorted({k for _, e in shown for k, _ in e.recall})
    recall_head = "".join(f" R@{k} % |" for k in ks)
    lines = [
        f"| | questions |{recall_head} accuracy % | EM % | F1 % | work | ctx tokens | hops "
        "| p50 ms |",
        "|---|---:|" + "---:|" * len(ks) + "---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, e in shown:
        recall = "".join(f" {_pct(e.recall_at(k))} |" for k in ks)
        lines.append(
            f"| {name} | {e.questions} |{recall} {_pct(e.accuracy)} | {_pct(e.em)} | "
            f"{_pct(e.f1)} | {e.work:.1f} | {e.tokens:.1f} | {e.hops:.2f} | "
            f"{e.latency_p50_ms:.2f} |"
        )
    return lines


def render_markdown(
    run: EvolveRun, report: dict[str, Any], views: list[tuple[Question, str]] | None = None
) -> str:
    """The human summary of a run (``views``: explain pages of newly answered questions)."""
    gate, held, study = run.gate, run.held_out, run.study
    base, chosen = study.baseline_trial, run.chosen
    objectives = objectives_named(run.options.objective)
    quality = " and ".join(objectives.quality)
    verdict = (
        f"**Gate passed** on {' and '.join(gate.claims)}: trial #{chosen.number} replaces "
        "the default genome (exit 0)."
        if gate.passed
        else f"**Gate not passed**: no variant kept {quality} while gaining 5 points in "
        f"{'one of them' if len(objectives.quality) > 1 else 'it'} or 20% latency. "
        f"The baseline stands (exit {run.exit_code})."
    )
    label = "winner" if gate.passed else "best found"
    search_space = "".join(
        f", {name} limited to {low:g}..{high:g}" for name, low, high in run.options.gene_ranges
    )
    timed_out = len(report["timed_out"])
    cap = (
        f", time cap {run.options.time_cap_s:g} s per genome ({timed_out} timed out)"
        if run.options.time_cap_s
        else ""
    )
    lines = [
        "# mragent evolve",
        "",
        verdict,
        "",
        f"Corpus `{run.options.corpus_path}` (sha256 `{run.corpus_sha256[:16]}…`), "
        f"{run.engine} {run.engine_version}, seed {run.options.seed}, "
        f"{study.generation} generations x {run.options.population}, "
        f"{len(study.trials)} genomes evaluated in {run.elapsed_s:.1f} s.",
        "",
        "Objectives: "
        + ", ".join(f"{name} ({way})" for name, way in objectives.directions().items())
        + f"{search_space}{cap}.",
        "",
        f"## Training questions ({len(run.train)}, seen by the search)",
        "",
        *_metrics_table([("baseline", base.evaluation), (label, chosen.evaluation)]),
        "",
        f"Score: baseline {base.score:.3f}, {label} {chosen.score:.3f}.",
    ]
    if gate.latency:
        lat = gate.latency
        lines += [
            "",
            f"Re-timed latency (interleaved, {len(lat.ratios)} repeats, median of paired "
            f"ratios): {lat.baseline_p50_ms:.2f} ms -> {lat.variant_p50_ms:.2f} ms "
            f"({lat.improvement:+.1%} saved).",
        ]
    lines += ["", "Gate decisions:", "", *[f"- {d}" for d in gate.decisions]]
    if held:
        holds = "holds" if held.holds else "does not hold"
        lines += [
            "",
            f"## Held-out questions ({len(held.questions)}, never seen by the search)",
            "",
            *_metrics_table([("baseline", held.baseline), (label, held.variant)]),
            "",
            (
                f"Re-timed latency on held-out: {held.latency.improvement:+.1%} saved. "
                if held.latency
                else ""
            )
            + f"The gate {holds} on held-out"
            + (f" ({' and '.join(held.claims)})." if held.claims else "."),
        ]
    else:
        lines += ["", "No questions were held out (`--split 0`)."]
    if views:
        lines += ["", f"## Why it won: questions the {label} newly answers", ""]
        lines += [f"- [{q.id}]({href}): {' '.join(q.question.split())}" for q, href in views]
    lines += ["", f"## Genome ({label} vs baseline)", "", "| gene | baseline | chosen |"]
    lines.append("|---|---|---|")
    for spec in GENES:
        b, c = base.params[spec.name], chosen.params[spec.name]
        lines.append(f"| {spec.name} | {b} | {'**' + str(c) + '**' if b != c else c} |")
    lines += ["", f"## Pareto front ({len(study.pareto_front)} of {len(study.trials)})", ""]
    lines += [f"| # | gen | R@{RECALL_K} % | accuracy % | work | ctx tokens | hops | score |"]
    lines.append("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for t in sorted(study.pareto_front, key=lambda t: (-t.score, t.number))[:20]:
        e = t.evaluation
        recall = _pct(e.recall_at(RECALL_K)) if e.recall else "-"
        lines.append(
            f"| {t.number} | {t.generation} | {recall} | {_pct(e.accuracy)} | {e.work:.1f} | "
            f"{e.tokens:.1f} | {e.hops:.2f} | {t.score:.3f} |"
        )
    comparison = report.get("compare_random")
    if comparison:
        n, r = comparison["nsga2"], comparison["random"]
        lines += [
            "",
            "## NSGA-II vs random search (same budget)",
            "",
            "| | evaluations | hypervolume | best score | best accuracy % | to gate |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for name, f in (("NSGA-II", n), ("random", r)):
            lines.append(
                f"| {name} | {f['evaluations']} | {f['hypervolume']:.4f} | "
                f"{f['best_score']:.3f} | {_pct(f['best_accuracy'])} | "
                f"{f['evaluations_to_gate'] or 'never'} |"
            )
        lines += ["", f"Hypervolume: {comparison['hypervolume']}."]
    lines += ["", "## Generations", "", "| gen | evals | front | best score | best so far |"]
    lines.append("|---:|---:|---:|---:|---:|")
    for entry in study.logbook:
        lines.append(
            f"| {entry['gen']} | {entry['evals']} | {entry['front']} | "
            f"{entry['best_score']:.3f} | {entry['best_so_far']:.3f} |"
        )
    lines += ["", f"Score policy: {SCORE_POLICY}.", ""]
    return "\n".join(lines)


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
