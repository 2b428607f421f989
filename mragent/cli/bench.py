"""``mragent bench``: measure a genome beside flat baselines."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import Progress
from rich.table import Table

from mragent.apps.abstention import AbstentionReport, run_abstention
from mragent.apps.baselines import FLAT_METHODS
from mragent.apps.bench import bench_report, run_bench
from mragent.apps.negative.report import CATEGORIES, NegativeReport
from mragent.apps.negative.run import run_negative
from mragent.apps.unanswerable import DEFAULT_SAMPLE
from mragent.cli.common import (
    DbOption,
    EmbedderOption,
    GenomeOption,
    JsonOption,
    ReportOutOption,
    chosen_embedder,
    cli_errors,
    console,
    embedder_namespace,
    emit_json,
    out,
    say,
)
from mragent.cli.identity import corpus_writer, granted_view
from mragent.cli.questions import (
    CorpusNsOption,
    CorpusOption,
    DatasetOption,
    PathOption,
    ingest_if_empty,
    load_questions,
)
from mragent.core.embedding.cache import cached
from mragent.core.files import write_json_atomic
from mragent.core.genome import load_genome
from mragent.core.retrieval.abstention import AbstentionRule
from mragent.core.store import open_store
from mragent.core.view import ReadView
from mragent.evolution.split import DEFAULT_SPLIT, split_questions
from mragent.memory.space import namespace_genome

NEGATIVE_FAILED = 5  # exit code: something that must not be recalled was


def bench_command(
    corpus: CorpusOption = None,
    dataset: DatasetOption = None,
    path: PathOption = None,
    genome: GenomeOption = None,
    db: DbOption = None,
    ns: CorpusNsOption = None,
    report_out: ReportOutOption = None,
    negative: Annotated[
        bool,
        typer.Option(
            "--negative/--no-negative",
            help="Also run the negative evaluation (forgotten, rejected, superseded, "
            "out-of-scope and pending memories must never be recalled).",
        ),
    ] = True,
    embedder: EmbedderOption = None,
    abstention: Annotated[
        Path | None,
        typer.Option(
            help="A fitted abstention rule (its JSON, or a bench report holding one) that "
            "decides when to abstain; judged on the questions it was not fitted on. "
            "Without it, bench fits one on the training split and reports it.",
            exists=True,
            dir_okay=False,
        ),
    ] = None,
    unanswerable: Annotated[
        int,
        typer.Option(
            min=0,
            help="Unanswerable questions to build (an answerable question asked of the "
            "memory without one of its supporting passages), half on each side of the "
            "split; 0 skips the abstention section.",
        ),
    ] = DEFAULT_SAMPLE,
    seed: Annotated[
        int, typer.Option(help="Seeds the train/held-out split (as evolve's) and the sample.")
    ] = 0,
    as_json: JsonOption = False,
) -> None:
    """Run a genome over a corpus and print it beside flat BM25, dense and hybrid baselines
    (the dense ones on the namespace's embedder).

    Exit 5 when the negative evaluation recalls a memory that must not be recalled (or a
    control does not find its live counterpart, which would make the evaluation vacuous)."""
    with cli_errors():
        granted_view(None, ReadView())  # the caller reads the shared scope
        who = corpus_writer(None)
        given = load_genome(genome) if genome else None
        rule = AbstentionRule.load(abstention) if abstention else None
        data, namespace, path = load_questions(
            dataset and dataset.value, path, corpus, ns, "benchmark"
        )
        model = cached(chosen_embedder(embedder))
        namespace = embedder_namespace(namespace, ns, model)
        with open_store(db) as store:
            ingest_if_empty(store, data, namespace, model, who)
            # No --genome: the namespace's default (real-model when a real model stamped it).
            chosen = given or namespace_genome(store, namespace, model)
            with Progress(transient=True, console=console) as progress:
                systems = 2 + len(FLAT_METHODS)  # the genome, the default, the flat ones
                task = progress.add_task("questions", total=len(data.questions) * systems)
                runs = run_bench(
                    store, data, namespace, chosen, lambda n: progress.advance(task, n), model,
                    rule,
                )  # fmt: skip
            abstained = None
            if unanswerable:
                split = split_questions(data.questions, DEFAULT_SPLIT, seed)
                abstained = run_abstention(
                    store, data, namespace, chosen, split, sample=unanswerable, seed=seed,
                    embedder=model, rule=rule, principal=who,
                )  # fmt: skip
            neg = run_negative(store, chosen) if negative else None
            caps = store.capabilities
            stamp = store.run("get_space", {"ns": namespace})[0]["embedder"]
        report = bench_report(
            runs, genome=chosen, engine=caps.engine, version=caps.version, corpus=str(path),
            ns=namespace, negative=neg, embedder=stamp,
            abstention=abstained.to_dict() if abstained else None,
        )  # fmt: skip
        if report_out:
            write_json_atomic(report_out, report)
        if as_json:
            emit_json(report)
        else:
            _print(runs, caps.engine, caps.version, path)
            say(f"embedder: {stamp}; flat hybrid = BM25 and dense fused by RRF (k = 60)")
            if abstained is not None:
                _print_abstention(abstained, fitted=rule is None)
            if neg is not None:
                _print_negative(neg)
            if report_out:
                say(f"wrote {report_out}")
        if neg is not None and not neg.ok:
            raise typer.Exit(code=NEGATIVE_FAILED)


def _print(runs: list, engine: str, version: str, path: Path) -> None:
    quality = Table(title=f"{path.name} on {engine} {version}: quality (%)")
    cost = Table(title="cost (means per question; latency measured)")
    # Accuracy is answer-in-context (the gold answer appears in what synthesis is
    # handed); EM/F1 judge the extracted answer and are much lower.
    # On a narrow terminal the system names wrap; the figures keep their full width.
    for table, columns in (
        (quality, ("in-context acc", "EM", "F1", "R@2", "R@5", "R@10")),
        (cost, ("ctx tokens", "hops", "work", "p50 ms", "p95 ms", "score")),
    ):
        table.add_column("system")
        for column in columns:
            table.add_column(column, justify="right", no_wrap=True, min_width=len(column))
    for run in runs:
        s = run.summary
        recall = [f"{100 * s.recall[k]:.1f}" if s.recall else "-" for k in (2, 5, 10)]
        answers = [f"{100 * v:.1f}" if v is not None else "-" for v in (s.em, s.f1)]
        quality.add_row(run.name, f"{100 * s.accuracy:.1f}", *answers, *recall)
        cost.add_row(
            run.name,
            f"{s.tokens:.0f}",
            f"{s.hops:.2f}",
            f"{s.work:.0f}",
            f"{s.latency_p50_ms:.2f}",
            f"{s.latency_p95_ms:.2f}",
            f"{run.score:.3f}" if run.score is not None else "-",
        )
    out.print(quality)
    out.print(cost)
    kinds = sorted({r.kind for r in runs[0].results if r.kind})
    if kinds:
        per_kind = _kind_table("in-context accuracy by question kind (%)", runs)
        for kind in kinds:
            cells = []
            for run in runs:
                hits = [r.correct for r in run.results if r.kind == kind]
                cells.append(f"{100 * sum(hits) / len(hits):.0f}")
            per_kind.add_row(kind, str(len(hits)), *cells)
        out.print(per_kind)
        out.print(_recall_by_kind(runs, kinds))
    stages = runs[0].summary.stage_p50_ms
    say("mragent p50 per stage: " + ", ".join(f"{k} {v:.2f} ms" for k, v in stages.items()))


def _kind_table(title: str, runs: list) -> Table:
    """A per-kind table: the kind, its question count, then one column per system."""
    table = Table(title=title)
    # The kind and count never shrink: on a narrow terminal the system columns wrap
    # their names and cells instead (unwrapped, rich squeezed kind, n and mragent away).
    kind_width = max((len(r.kind) for r in runs[0].results if r.kind), default=4)
    table.add_column("kind", no_wrap=True, min_width=kind_width)
    table.add_column("n", justify="right", no_wrap=True, min_width=3)
    for run in runs:
        table.add_column(run.name, justify="right")
    return table


def _recall_by_kind(runs: list, kinds: list[str]) -> Table:
    """Support recall R@2 / R@5 / R@10 of each system, per question kind (hop count)."""
    table = _kind_table("support recall R@2 / R@5 / R@10 by question kind (%)", runs)
    for kind in kinds:
        cells, n = [], 0
        for run in runs:
            scored = [r.recall for r in run.results if r.kind == kind and r.recall]
            n = len(scored)
            cells.append(
                " / ".join(f"{100 * sum(r[k] for r in scored) / n:.1f}" for k in (2, 5, 10))
                if n
                else "-"
            )
        table.add_row(kind, str(n), *cells)
    return table


def _print_abstention(report: AbstentionReport, *, fitted: bool) -> None:
    rates = report.rates()
    n = rates["calibrated"]
    table = Table(
        title=f"abstention on held-out questions (%): {n['unanswerable']} unanswerable "
        f"(a supporting passage removed), {n['answerable']} answerable"
    )
    columns = (
        "rule",
        "abstained (unanswerable)",
        "false abstention (answerable)",
        f"false abstention (answer in context, n={n['in_context']})",
    )
    for column in columns:
        table.add_column(column, justify="left" if column == "rule" else "right")
    keys = ("abstention", "false_abstention", "false_abstention_in_context")
    for name, label in (("calibrated", "calibrated"), ("extractive", "extractive (today)")):
        cells = (f"{100 * rates[name][k]:.1f}" for k in keys)
        table.add_row(label, *cells)
    out.print(table)
    fit = report.rule.fitted_on
    origin = "fitted here on" if fitted else "given, fitted on"
    say(
        f"calibrated rule {origin} {fit.get('answerable')} answerable and "
        f"{fit.get('unanswerable')} unanswerable training questions; training false "
        f"abstention {100 * float(fit.get('train_false_abstention', 0)):.1f}% "
        f"(bound {100 * float(fit.get('max_false_abstention', 0)):.0f}%)"
    )


def _print_negative(report: NegativeReport) -> None:
    table = Table(title="negative evaluation (%)")
    for column in ("category", "absent", "control found", "long-lived reader"):
        table.add_column(column, justify="left" if column == "category" else "right")
    absence, presence, lived = report.absence, report.presence, report.long_lived
    for category in CATEGORIES:
        rates = (absence[category], presence[category], lived[category])
        table.add_row(category, *(f"{100 * rate:.1f}" for rate in rates))
    out.print(table)
    for failure in report.failures():
        say(f"  FAILED: {failure}")
