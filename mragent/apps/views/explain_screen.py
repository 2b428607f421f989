"""The trace on a terminal: entry cues, paths, contents, answer and time per stage."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mragent.apps.views.explain import Fate, Trace, TraceContent, TracePath

MAX_ROWS = 40  # rows per screen section before "... n more"
MAX_OTHER_ROWS = 12  # path rows per fate other than kept


def path_text(trace: Trace, path: TracePath) -> str:
    """``"cue" > tag > tag => content`` with names instead of ids."""
    names = [trace.name(n) for n in path.nodes]
    middle = " > ".join(names[1:-1])
    return f'"{names[0]}" > {middle} => {names[-1]}'


def _rank_change(content: TraceContent) -> str:
    if content.rank is None or content.evidence_rank is None:
        return "-"
    moved = content.evidence_rank - content.rank
    arrow = f"up {moved}" if moved > 0 else f"down {-moved}" if moved < 0 else "="
    return f"{content.evidence_rank} -> {content.rank} ({arrow})"


def _capped(table: Table, rows: list[list[str]], columns: int, limit: int = MAX_ROWS) -> Table:
    for row in rows[:limit]:
        table.add_row(*row)
    if len(rows) > limit:
        table.add_row(f"... {len(rows) - limit} more", *[""] * (columns - 1))
    return table


def render_trace(trace: Trace, console: Console) -> None:
    """Print the trace: cues, paths, contents, answer, time per stage."""
    genes = " ".join(f"{k}={v}" for k, v in trace.genome.to_json_dict().items())
    console.print(f"[bold]{escape(trace.question)}[/bold]", soft_wrap=True)
    console.print(f"{trace.engine}, namespace {trace.ns!r}; genome {genes}", highlight=False)
    console.print(_cue_table(trace))
    console.print(_path_table(trace))
    console.print(_content_table(trace))
    _print_answer_and_time(trace, console)


def _cue_table(trace: Trace) -> Table:
    rec, genome = trace.reconstruction, trace.genome
    cues = Table(
        title=f"entry cues ({len(rec.cues)}; cueK={genome.cueK}, fusion {genome.fusion.value})"
    )
    for column in ("#", "cue", "dense", "sparse", "fused", "entry evidence", "paths kept"):
        cues.add_column(column, justify="left" if column == "cue" else "right")
    kept_from = [p.nodes[0] for p in trace.used_paths]
    cue_rows = [
        [str(i), escape(c.text), f"{c.dense:.3f}", f"{c.sparse:.3f}", f"{c.fused:.4f}",
         f"{c.score:.3f}", str(kept_from.count(c.id))]
        for i, c in enumerate(rec.cues, 1)
    ]  # fmt: skip
    return _capped(cues, cue_rows, 7)


def _path_table(trace: Trace) -> Table:
    genome = trace.genome
    paths = Table(
        title=f"paths (depth 1..{genome.traversalDepth}, fanout {genome.tagFanout}, "
        f"prune < {genome.pruneThreshold:g})"
    )
    for column in ("fate", "evidence", "hops", "path (cue > tags => content)", "why"):
        paths.add_column(column, justify="right" if column in ("evidence", "hops") else "left")
    for fate in Fate:
        rows = [
            [p.fate.value, f"{p.evidence:.3f}", str(p.hops), escape(path_text(trace, p)),
             escape(p.reason)]
            for p in trace.paths
            if p.fate is fate
        ]  # fmt: skip
        _capped(paths, rows, 5, MAX_ROWS if fate is Fate.KEPT else MAX_OTHER_ROWS)
    return paths


def _content_table(trace: Trace) -> Table:
    genome = trace.genome
    contents = Table(
        title=f"contents (rerank {genome.rerank.value}, maxContent {genome.maxContent})"
    )
    numbers = ("rank", "evidence rank -> rank", "evidence", "score")
    for column in ("rank", "evidence rank -> rank", "content", "evidence", "score", "fate",
                   "entered by"):  # fmt: skip
        contents.add_column(column, justify="right" if column in numbers else "left")
    content_rows = [
        [str(c.rank or "-"), _rank_change(c), escape(c.title), f"{c.evidence:.3f}",
         f"{c.score:.3f}" if c.score is not None else "-", escape(c.reason),
         escape(trace.entry_text(c))]
        for c in trace.contents
    ]  # fmt: skip
    return _capped(contents, content_rows, 7)


def _print_answer_and_time(trace: Trace, console: Console) -> None:
    rec = trace.reconstruction
    answer = rec.answer
    if answer.abstained:
        console.print(
            "answer: [yellow]abstained[/yellow] (the context does not cover the question)"
        )
    else:
        console.print(f"answer: [bold green]{escape(answer.text or '')}[/bold green]")
        console.print(f"  from: {escape(answer.sentence)}", highlight=False, soft_wrap=True)
    stages = ", ".join(f"{k} {v:.2f} ms" for k, v in rec.timings_ms.items())
    extra = ", ".join(f"{k} {v:.2f} ms" for k, v in trace.explain_ms.items())
    console.print(f"time: {stages} (total {rec.latency_ms:.2f} ms)", highlight=False)
    if extra:
        console.print(f"explain only: {extra}", highlight=False)
