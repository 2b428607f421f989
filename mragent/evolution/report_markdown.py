"""``optimize.report.md``: the human summary of a run, one section per helper."""

from __future__ import annotations

import statistics
from typing import Any

from mragent.core.corpus import Question
from mragent.core.genome import GENES
from mragent.evolution.gate import RULE as GATE_RULE
from mragent.evolution.gate import GateResult
from mragent.evolution.hypervolume import HYPERVOLUME_RULE
from mragent.evolution.objectives import RECALL_K, SCORE_POLICY, objectives_named
from mragent.evolution.run import EvolveRun, HeldOut
from mragent.evolution.study import Study
from mragent.evolution.trial import Evaluation, Trial


def render_markdown(
    run: EvolveRun, report: dict[str, Any], views: list[tuple[Question, str]] | None = None
) -> str:
    """The human summary of a run (``views``: explain pages of newly answered questions)."""
    label = "winner" if run.gate.passed else "best found"
    lines = [
        *_summary(run, report),
        *_training(run, label),
        *_held_out(run.held_out, label),
        *_views(views or [], label),
        *_genome(run.study.baseline_trial, run.chosen, label),
        *_pareto_front(run.study),
        *_comparison(report.get("comparison")),
        *_generations(run.study),
        "",
        f"Score policy: {SCORE_POLICY}.",
        "",
        f"Gate: {GATE_RULE}.",
        "",
        f"Hypervolume: {HYPERVOLUME_RULE}.",
        "",
    ]
    return "\n".join(lines)


def _pct(x: float | None) -> str:
    """A share as a percentage with one decimal; "-" where nothing was measured."""
    return "-" if x is None else f"{100 * x:.1f}"


def _metrics_table(rows: list[tuple[str, Evaluation | None]]) -> list[str]:
    shown = [(name, e) for name, e in rows if e is not None]
    # Recall columns only where gold supporting passages were measured.
    ks = sorted({k for _, e in shown for k, _ in e.recall})
    recall_head = "".join(f" R@{k} % |" for k in ks)
    # Abstention columns only where unanswerable variants were judged.
    abstaining = any(e.false_abstention is not None for _, e in shown)
    abstain_head = " abstained % | false abstention % |" if abstaining else ""
    lines = [
        f"| | questions |{recall_head} accuracy % |{abstain_head} EM % | F1 % | work "
        "| ctx tokens | hops | p50 ms |",
        "|---|---:|" + "---:|" * (len(ks) + 2 * abstaining) + "---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, e in shown:
        recall = "".join(f" {_pct(e.recall_at(k))} |" for k in ks)
        abstain = f" {_pct(e.abstention)} | {_pct(e.false_abstention)} |" if abstaining else ""
        lines.append(
            f"| {name} | {e.questions} |{recall} {_pct(e.accuracy)} |{abstain} {_pct(e.em)} | "
            f"{_pct(e.f1)} | {e.work:.1f} | {e.tokens:.1f} | {e.hops:.2f} | "
            f"{e.latency_p50_ms:.2f} |"
        )
    return lines


def _summary(run: EvolveRun, report: dict[str, Any]) -> list[str]:
    """The verdict, what was searched and on what, and the objectives."""
    gate, study = run.gate, run.study
    objectives = objectives_named(run.options.objective_set)
    quality = " and ".join(objectives.quality)
    verdict = (
        f"**Gate passed** on {' and '.join(gate.claims)}: trial #{run.chosen.number} replaces "
        "the baseline genome (exit 0)."
        if gate.passed
        else f"**Gate not passed**: no variant kept {quality} while gaining 5 points in "
        f"{'one of them' if len(objectives.quality) > 1 else 'it'} or cutting work 20% "
        "(without a latency veto). "
        f"The baseline stands (exit {run.exit_code})."
    )
    search_space = "".join(
        f", {name} limited to {low:g}..{high:g}" for name, low, high in run.options.gene_ranges
    )
    timed_out = len(report["timed_out"])
    cap = (
        f", time cap {run.options.time_cap_s:g} s per genome ({timed_out} timed out)"
        if run.options.time_cap_s
        else ""
    )
    return [
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
        f"Baseline: {_baseline(run)}"
        + ("." if run.options.preset_seeds else "; the other presets do not seed the search."),
    ]


def _baseline(run: EvolveRun) -> str:
    """The baseline's name, code-quoted unless it is the namespace's default."""
    label = run.options.baseline_label
    return label if run.options.baseline is None else f"`{label}`"


def _training(run: EvolveRun, label: str) -> list[str]:
    """Baseline and chosen genome on the training questions, the re-timing, the decisions."""
    gate, base, chosen = run.gate, run.study.baseline_trial, run.chosen
    lines = [
        "",
        f"## Training questions ({len(run.train)}, seen by the search)",
        "",
        *_metrics_table([("baseline", base.evaluation), (label, chosen.evaluation)]),
        "",
        f"Score: baseline {base.score:.3f}, {label} {chosen.score:.3f}.",
    ]
    return [*lines, *_latency(gate), "", "Gate decisions:", "", *[f"- {d}" for d in gate.decisions]]


def _latency(gate: GateResult) -> list[str]:
    if not gate.latency:
        return []
    lat = gate.latency
    return [
        "",
        f"Re-timed (p50 {lat.baseline_p50_ms:.2f} ms -> {lat.variant_p50_ms:.2f} ms): "
        f"{lat.describe()}.",
    ]


def _held_out(held: HeldOut | None, label: str) -> list[str]:
    if not held:
        return ["", "No questions were held out (`--split 0`)."]
    holds = "holds" if held.holds else "does not hold"
    return [
        "",
        f"## Held-out questions ({len(held.questions)}, never seen by the search)",
        "",
        *_metrics_table([("baseline", held.baseline), (label, held.variant)]),
        "",
        (f"Re-timed on held-out: {held.latency.describe()}. " if held.latency else "")
        + f"The gate {holds} on held-out"
        + (f" ({' and '.join(held.claims)})." if held.claims else "."),
    ]


def _views(views: list[tuple[Question, str]], label: str) -> list[str]:
    if not views:
        return []
    return [
        "",
        f"## Why it won: questions the {label} newly answers",
        "",
        *[f"- [{q.id}]({href}): {' '.join(q.question.split())}" for q, href in views],
    ]


def _genome(base: Trial, chosen: Trial, label: str) -> list[str]:
    lines = ["", f"## Genome ({label} vs baseline)", "", "| gene | baseline | chosen |"]
    lines.append("|---|---|---|")
    for spec in GENES:
        b, c = base.params[spec.name], chosen.params[spec.name]
        lines.append(f"| {spec.name} | {b} | {'**' + str(c) + '**' if b != c else c} |")
    return lines


def _pareto_front(study: Study) -> list[str]:
    front = study.pareto_front
    lines = [
        "",
        f"## Pareto front ({len(front)} of {len(study.trials)} genomes, all listed)",
        "",
        "Non-dominated on every objective of the set; # is the trial number used "
        "everywhere (terminal, plot, JSON, Optuna export). Highest score first.",
        "",
    ]
    lines += [f"| # | gen | R@{RECALL_K} % | accuracy % | work | ctx tokens | hops | score |"]
    lines.append("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for t in sorted(front, key=lambda t: (-t.score, t.number)):
        e = t.evaluation
        recall = _pct(e.recall_at(RECALL_K)) if e.recall else "-"
        lines.append(
            f"| {t.number} | {t.generation} | {recall} | {_pct(e.accuracy)} | {e.work:.1f} | "
            f"{e.tokens:.1f} | {e.hops:.2f} | {t.score:.3f} |"
        )
    return lines


def _comparison(comparison: dict[str, Any] | None) -> list[str]:
    if not comparison:
        return []
    seeds = comparison["seeds"]
    lines = [
        "",
        f"## Compared searches (equal budget, seeds {', '.join(map(str, seeds))})",
        "",
        "Medians over the seeds, [min..max]. Cost: what the run's own search spent at each "
        "seed, in full evaluations (a genome screened on a subset costs its share); the "
        "other methods evaluate every genome in full and get that cost as their budget. "
        "To gate: evaluations until the first gate candidate; to random's HV: evaluations "
        "until the method reached random search's final hypervolume at the same seed (share "
        "of random's budget), and on how many seeds within half of it; in box: share of the "
        "evaluations inside the hypervolume's reference box (the rest add nothing).",
        "",
        "| method | evaluations | cost | final hypervolume | best score | in box | to gate | "
        "to random's HV | within half |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for f in comparison["methods"]:
        costs = f.get("cost_full_evaluations") or f["evaluations"]
        lines.append(
            f"| {f['label']} | {_median_range(f['evaluations'])} | "
            f"{statistics.median(costs):.1f} | "
            f"{_spread(f['final_hypervolume'], '.4f')} | {_spread(f['best_score'], '.3f')} | "
            f"{f['inside_box_share']['median']:.0%} | "
            f"{_reached(f['evaluations_to_gate'])} | {_reached(f['to_reach_random_final_hv'])}"
            f"{_share(f['budget_share_to_reach_random_final_hv'])} | "
            f"{f.get('reach_random_within_half_budget', '-')}/{len(seeds)} |"
        )
    lines += ["", *[f"- {claim['statement']}." for claim in comparison["claims"]]]
    return lines


def _median_range(values: list[int]) -> str:
    ordered = sorted(values)
    return f"{ordered[len(ordered) // 2]} [{ordered[0]}..{ordered[-1]}]"


def _spread(figure: dict[str, float], spec: str) -> str:
    return f"{figure['median']:{spec}} [{figure['min']:{spec}}..{figure['max']:{spec}}]"


def _reached(figure: dict[str, Any]) -> str:
    median = "never" if figure["median"] is None else f"{figure['median']:g}"
    return median + (f" (never on {figure['never']})" if figure["never"] else "")


def _share(share: float | None) -> str:
    return "" if share is None else f" ({share:.0%})"


def _generations(study: Study) -> list[str]:
    lines = ["", "## Generations", ""]
    lines += ["| gen | evals | archive | front | best score | best so far | hypervolume |"]
    lines.append("|---:|---:|---:|---:|---:|---:|---:|")
    for entry in study.logbook:
        volume = entry.get("hypervolume")  # absent in logbooks of older checkpoints
        lines.append(
            f"| {entry['gen']} | {entry['evals']} | {entry['archive']} | {entry['front']} | "
            f"{entry['best_score']:.3f} | {entry['best_so_far']:.3f} | "
            f"{'-' if volume is None else f'{volume:.4f}'} |"
        )
    return lines
