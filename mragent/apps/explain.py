"""Explain one reconstruction: what was found, walked, pruned, kept, and why.

:func:`build_trace` runs a question through :meth:`Memory.reconstruct` and
annotates the result:

* every path the traversal returned, with the fate of the content it reaches
  (handed to synthesis, dropped by the prompt strategy, cut by ``maxContent``);
* the paths ``pruneThreshold`` removed. The traversal drops them inside Cypher,
  so they are found by a second, *shadow* traversal with the same genes and a
  floor of 0; its time is reported apart from the reconstruction's own;
* names for the node ids (``trace_nodes``) and the weight of every edge, so
  evidence can be shown along each path.

:func:`render_trace` prints the trace with rich; :func:`browser_cypher` writes a
query that draws the paths used in Neo4j Browser, Memgraph Lab or FalkorDB's
browser. The HTML view lives in :mod:`mragent.apps.html_view`, persistence in
:mod:`mragent.apps.trace_store`.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from enum import Enum

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mragent.core.errors import MragentError
from mragent.core.genome import Genome
from mragent.core.retrieval.reconstruct import HOP_DECAY, TRAILS_PER_CONTENT, traverse
from mragent.core.retrieval.synthesis import PRUNE_RATIO, TERSE_MAX, TERSE_RATIO
from mragent.memory.reader import Memory, Reconstruction

# What may be printed into Cypher text between quotes: ids are uuid4 strings.
_UUIDISH = re.compile(r"[0-9a-f][0-9a-f-]{0,63}")
MAX_ROWS = 40  # rows per screen section before "... n more"
MAX_OTHER_ROWS = 12  # path rows per fate other than kept


class Fate(str, Enum):
    """What became of a path (and of the content it reaches)."""

    KEPT = "kept"  # reaches a content handed to synthesis
    DROPPED = "dropped"  # the prompt strategy left its content out
    CUT = "cut"  # its content ranked beyond maxContent
    PRUNED = "pruned"  # evidence under pruneThreshold: the traversal dropped it
    UNRANKED = "unranked"  # above the floor, but outside what the traversal returns


FATE_ORDER = {fate: i for i, fate in enumerate(Fate)}


@dataclass(frozen=True)
class TracePath:
    """One path, cue first, content last, with its fate and the reason for it."""

    nodes: tuple[str, ...]
    evidence: float
    hops: int
    fate: Fate
    reason: str = ""


@dataclass(frozen=True)
class TraceContent:
    """A content reached by any path (surviving or pruned).

    ``rank`` and ``evidence_rank`` are 1-based final and pre-rerank positions,
    None for contents the traversal did not return.
    """

    id: str
    title: str
    text: str
    evidence: float
    score: float | None
    evidence_rank: int | None
    rank: int | None
    fate: Fate
    reason: str = ""


@dataclass(frozen=True)
class TraceNode:
    """A node's label (Cue, Tag, Content) and human name (cue text, tag name, title)."""

    id: str
    label: str
    name: str


@dataclass
class Trace:
    """A reconstruction and everything needed to show it."""

    question: str
    genome: Genome
    ns: str
    engine: str
    reconstruction: Reconstruction
    paths: list[TracePath]
    contents: list[TraceContent]
    nodes: dict[str, TraceNode]
    weights: dict[tuple[str, str], float]
    explain_ms: dict[str, float] = field(default_factory=dict)

    @property
    def used_paths(self) -> list[TracePath]:
        """The paths that reached the contents handed to synthesis."""
        return [p for p in self.paths if p.fate is Fate.KEPT]

    def name(self, node_id: str) -> str:
        node = self.nodes.get(node_id)
        return node.name if node else node_id[:8]

    def prefix_evidence(self, path: TracePath) -> list[float]:
        """Evidence after each edge of ``path`` (the traversal's formula, step by step).

        The last value is the path's evidence: cue score times every edge
        weight, times the hop decay for each LINKED_TO hop beyond the first.
        """
        cue = {c.id: c.score for c in self.reconstruction.cues}
        value, out = cue.get(path.nodes[0], 0.0), []
        for i, (src, dst) in enumerate(zip(path.nodes, path.nodes[1:], strict=False)):
            value *= self.weights.get((src, dst), 0.0)
            if 0 < i < len(path.nodes) - 2:
                value *= HOP_DECAY
            out.append(value)
        return out


def _content_fates(rec: Reconstruction, genome: Genome) -> dict[str, tuple[Fate, str]]:
    kept = {r.candidate.id for r in rec.context.items}
    dropped = {r.candidate.id for r in rec.context.dropped}
    strategy = genome.promptStrategy
    fates: dict[str, tuple[Fate, str]] = {}
    for i, ranked in enumerate(rec.ranked):
        cid = ranked.candidate.id
        if cid in kept:
            fates[cid] = (Fate.KEPT, "handed to synthesis")
        elif i >= genome.maxContent:
            fates[cid] = (Fate.CUT, f"cut by maxContent (rank {i + 1} > {genome.maxContent})")
        elif cid in dropped:
            fates[cid] = (
                Fate.DROPPED,
                f"dropped by promptStrategy {strategy.value} (score < {PRUNE_RATIO:g} x top)",
            )
        else:
            fates[cid] = (
                Fate.DROPPED,
                f"dropped by promptStrategy {strategy.value} "
                f"(score < {TERSE_RATIO:g} x top or beyond {TERSE_MAX})",
            )
    return fates


def _shadow(
    memory: Memory, rec: Reconstruction, genome: Genome, seen: set[tuple[str, ...]]
) -> tuple[list[TracePath], list[TraceContent]]:
    """Paths and contents the floor removed: the same traversal at pruneThreshold 0."""
    floor = genome.pruneThreshold
    floorless = genome.replace(pruneThreshold=0.0)
    found = traverse(memory.store, memory.ns, memory.view, rec.cues, floorless, bridges=False)
    shadow = found.candidates if found else []
    returned = {c.id for c in rec.candidates}
    paths: list[TracePath] = []
    contents: list[TraceContent] = []
    for cand in shadow:
        for trail in cand.trails:
            if trail.nodes in seen:
                continue
            if trail.evidence < floor:
                fate = Fate.PRUNED
                why = f"pruned: evidence {trail.evidence:.3f} < threshold {floor:g}"
            elif cand.id in returned:
                fate = Fate.UNRANKED
                why = f"not among its content's {TRAILS_PER_CONTENT} strongest paths"
            else:
                fate, why = Fate.UNRANKED, "outside the candidate pool"
            paths.append(TracePath(trail.nodes, trail.evidence, trail.hops, fate, why))
        if cand.id not in returned:
            if cand.evidence < floor:
                fate = Fate.PRUNED
                why = f"pruned: best evidence {cand.evidence:.3f} < threshold {floor:g}"
            else:
                fate, why = Fate.UNRANKED, "outside the candidate pool"
            title = cand.title or cand.key
            contents.append(
                TraceContent(cand.id, title, cand.text, cand.evidence, None, None, None, fate, why)
            )
    return paths, contents


def build_trace(memory: Memory, question: str, genome: Genome) -> Trace:
    """Reconstruct ``question`` and annotate every path with its fate.

    Args:
        memory: The memory to read.
        question: The question.
        genome: The pipeline's parameters.
    """
    rec = memory.reconstruct(question, genome)
    fates = _content_fates(rec, genome)
    paths: list[TracePath] = []
    seen: set[tuple[str, ...]] = set()
    for ranked in rec.ranked:
        fate, reason = fates[ranked.candidate.id]
        for trail in ranked.candidate.trails:
            seen.add(trail.nodes)
            paths.append(TracePath(trail.nodes, trail.evidence, trail.hops, fate, reason))
    contents = [
        TraceContent(
            r.candidate.id,
            r.candidate.title or r.candidate.key,
            r.candidate.text,
            r.candidate.evidence,
            r.score,
            r.evidence_rank + 1,
            i + 1,
            *fates[r.candidate.id],
        )
        for i, r in enumerate(rec.ranked)
    ]
    explain_ms: dict[str, float] = {}
    if genome.pruneThreshold > 0 and rec.cues:
        start = time.perf_counter()
        more_paths, more_contents = _shadow(memory, rec, genome, seen)
        paths += more_paths
        contents += more_contents
        explain_ms["shadow traversal (prune 0)"] = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    ids = sorted({c.id for c in rec.cues} | {n for p in paths for n in p.nodes})
    nodes: dict[str, TraceNode] = {}
    weights: dict[tuple[str, str], float] = {}
    for row in memory.store.run("trace_nodes", {"ns": memory.ns, "ids": ids}) if ids else []:
        nodes[row["id"]] = TraceNode(row["id"], row["label"], str(row["name"] or ""))
        for edge in row["out"]:
            if edge.get("to") is not None:
                weights[(row["id"], edge["to"])] = float(edge["weight"] or 0.0)
    explain_ms["node names"] = (time.perf_counter() - start) * 1000
    paths.sort(key=lambda p: (FATE_ORDER[p.fate], -p.evidence, p.nodes))
    return Trace(
        question,
        genome,
        memory.ns,
        memory.store.capabilities.engine,
        rec,
        paths,
        contents,
        nodes,
        weights,
        explain_ms,
    )


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
    for column in ("rank", "evidence rank -> rank", "content", "evidence", "score", "fate"):
        contents.add_column(column, justify="left" if column in ("content", "fate") else "right")
    content_rows = [
        [str(c.rank or "-"), _rank_change(c), escape(c.title), f"{c.evidence:.3f}",
         f"{c.score:.3f}" if c.score is not None else "-", escape(c.reason)]
        for c in trace.contents
    ]  # fmt: skip
    return _capped(contents, content_rows, 6)


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


def checked_id(node_id: str) -> str:
    """``node_id`` if it is uuid-like (safe between quotes in Cypher text).

    Raises:
        MragentError: when the id holds anything but lowercase hex and dashes.
    """
    if not isinstance(node_id, str) or not _UUIDISH.fullmatch(node_id):
        raise MragentError(f"node id {node_id!r} is not a uuid; refusing to print it as Cypher")
    return node_id


def path_pattern(nodes: tuple[str, ...]) -> str:
    """The Cypher pattern of one path, by ids: Cue, LINKED_TO Tags, REFERENCES Content."""
    ids = [checked_id(n) for n in nodes]
    out = f"(:Cue {{id: '{ids[0]}'}})"
    for tag in ids[1:-1]:
        out += f"-[:LINKED_TO]->(:Tag {{id: '{tag}'}})"
    return out + f"-[:REFERENCES]->(:Content {{id: '{ids[-1]}'}})"


def browser_cypher(trace: Trace) -> str:
    """A query that draws exactly the paths used, for a graph browser.

    One ``MATCH p = ... RETURN p`` per path, joined by ``UNION``; ids are
    literal (this text is for a person to paste, mragent never runs it) and
    each is checked to be uuid-like first.

    Raises:
        MragentError: when no path reached the context, or an id is not uuid-like.
    """
    used = trace.used_paths
    if not used:
        raise MragentError("no path reached the context: there is nothing to draw")
    kept = {p.nodes[-1] for p in used}
    question = " ".join(trace.question.split())
    header = [
        f"// mragent explain: the {len(used)} paths that reached the {len(kept)} contents "
        "handed to synthesis",
        f"// question: {question}",
    ]
    body = "\nUNION\n".join(f"MATCH p = {path_pattern(p.nodes)}\nRETURN p" for p in used)
    return "\n".join(header) + "\n" + body + "\n"
