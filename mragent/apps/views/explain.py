"""Explain one reconstruction: what was found, walked, pruned, kept, and why.

:func:`build_trace` runs a question through :meth:`MemoryReader.reconstruct` and
annotates the result:

* every path the traversal returned, with the fate of the content it reaches
  (handed to synthesis, dropped by the prompt strategy, cut by ``maxContent``);
* the paths ``pruneThreshold`` removed. The traversal drops them inside Cypher,
  so they are found by a second, *shadow* traversal with the same genes and a
  floor of 0; its time is reported apart from the reconstruction's own;
* how each content entered: by a cue path, or by passage seeding with no cue
  path surviving (the seed passage itself, or a passage its bridge walk reached,
  with the tags of that bridge from ``trace_bridges``);
* names for the node ids (``trace_nodes``) and the weight of every edge, so
  evidence can be shown along each path.

The views live apart: the terminal's in :mod:`mragent.apps.views.explain_screen`,
the Cypher for graph browsers in :mod:`mragent.apps.views.browser_view`, the HTML
page in :mod:`mragent.apps.views.html_view`, persistence in
:mod:`mragent.apps.views.trace_store`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import Enum

from mragent.core.genome import Genome
from mragent.core.retrieval.reconstruct import (
    HOP_DECAY,
    TRAILS_PER_CONTENT,
    Candidate,
    traverse,
)
from mragent.core.retrieval.synthesis import PRUNE_RATIO, TERSE_MAX, TERSE_RATIO
from mragent.memory.reader import MemoryReader, Reconstruction


class Fate(str, Enum):
    """What became of a path (and of the content it reaches)."""

    KEPT = "kept"  # reaches a content handed to synthesis
    DROPPED = "dropped"  # the prompt strategy left its content out
    CUT = "cut"  # its content ranked beyond maxContent
    PRUNED = "pruned"  # evidence under pruneThreshold: the traversal dropped it
    UNRANKED = "unranked"  # above the floor, but outside what the traversal returns


FATE_ORDER = {fate: i for i, fate in enumerate(Fate)}


class Entry(str, Enum):
    """How a content entered the reconstruction."""

    PATH = "cue path"  # a Cue -> Tag(s) -> Content path reached it
    SEEDED = "seeded"  # passage seeding (BM25 over its text) picked it; no cue path survived
    BRIDGED = "bridged"  # the bridge walk from a seed passage reached it; no cue path survived


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
    entry: Entry = Entry.PATH


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
    seeded_by: dict[str, str] = field(default_factory=dict)
    bridges: list[tuple[str, ...]] = field(default_factory=list)

    @property
    def used_paths(self) -> list[TracePath]:
        """The cue paths that reached the contents handed to synthesis."""
        return [p for p in self.paths if p.fate is Fate.KEPT]

    @property
    def kept(self) -> list[TraceContent]:
        """The contents handed to synthesis, in final order."""
        return [c for c in self.contents if c.fate is Fate.KEPT]

    @property
    def used_bridges(self) -> list[tuple[str, ...]]:
        """Bridges (seed, tag, tag, content) to bridged contents handed to synthesis."""
        bridged = {c.id for c in self.kept if c.entry is Entry.BRIDGED}
        return [b for b in self.bridges if b[-1] in bridged]

    @property
    def used_seeded(self) -> list[TraceContent]:
        """Seed passages handed to synthesis that no cue path reached."""
        return [c for c in self.kept if c.entry is Entry.SEEDED]

    def name(self, node_id: str) -> str:
        node = self.nodes.get(node_id)
        return node.name if node else node_id[:8]

    def entry_text(self, content: TraceContent) -> str:
        """How ``content`` entered, in words: by a cue path, seeding or a bridge."""
        if content.entry is Entry.SEEDED:
            cue = self.seeded_by.get(content.id)
            return f"seeded at cue {self.name(cue)!r}" if cue else "seeded"
        if content.entry is Entry.BRIDGED:
            seeds = sorted({self.name(b[0]) for b in self.bridges if b[-1] == content.id})
            return f"bridged from {' / '.join(seeds)}" if seeds else "bridged"
        return "cue path"

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
    memory: MemoryReader, rec: Reconstruction, genome: Genome, seen: set[tuple[str, ...]]
) -> tuple[list[TracePath], list[TraceContent]]:
    """Paths and contents the floor removed: the same traversal at pruneThreshold 0."""
    floor = genome.pruneThreshold
    floorless = genome.replace(pruneThreshold=0.0)
    found = traverse(memory.store, memory.ns, memory.view, rec.cues, floorless, bridges=False)
    shadow = found.candidates if found else []
    returned = {c.id for c in rec.candidates}
    # A content in the pool that no cue path reached (passage seeding) is listed already.
    listed = returned | {r.candidate.id for r in rec.ranked}
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
        if cand.id not in listed:
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


def build_trace(memory: MemoryReader, question: str, genome: Genome | None = None) -> Trace:
    """Reconstruct ``question`` and annotate every path with its fate.

    Args:
        memory: The memory to read.
        question: The question.
        genome: The pipeline's parameters (default: the namespace's).
    """
    genome = genome or memory.default_genome
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
            entry=_entry(r.candidate),
        )
        for i, r in enumerate(rec.ranked)
    ]
    explain_ms: dict[str, float] = {}
    start = time.perf_counter()
    seeded_by, bridges = _seeding(memory, rec, genome, contents)
    explain_ms["seeding"] = (time.perf_counter() - start) * 1000
    if genome.pruneThreshold > 0 and rec.cues:
        start = time.perf_counter()
        more_paths, more_contents = _shadow(memory, rec, genome, seen)
        paths += more_paths
        contents += more_contents
        explain_ms["shadow traversal (prune 0)"] = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    ids = sorted(
        {c.id for c in rec.cues}
        | {n for p in paths for n in p.nodes}
        | {n for b in bridges for n in b}
        | set(seeded_by)
    )
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
        seeded_by,
        bridges,
    )


def _entry(candidate: Candidate) -> Entry:
    """A content with no trail entered by seeding: as a seed (hop 0) or bridged (hop 1)."""
    if candidate.trails:
        return Entry.PATH
    return Entry.SEEDED if candidate.hops == 0 else Entry.BRIDGED


def _seeding(
    memory: MemoryReader, rec: Reconstruction, genome: Genome, contents: list[TraceContent]
) -> tuple[dict[str, str], list[tuple[str, ...]]]:
    """Which entry cue seeded each seed passage, and the bridges to bridged contents.

    The seeds are the confirmed entry cues that entered for a passage (their
    ``seed``), as the round trip of :meth:`MemoryReader.reconstruct` returned them.
    """
    seeded_by = {hit.seed: hit.id for hit in rec.cues if hit.seed is not None}
    targets = [c.id for c in contents if c.entry is Entry.BRIDGED]
    walked = list(seeded_by) if genome.traversalDepth >= 2 else []
    if not targets or not walked:
        return seeded_by, []
    params = {"ns": memory.ns, "scopes": list(memory.view.scopes), "seeds": walked,
              "targets": targets}  # fmt: skip
    rows = memory.store.run("trace_bridges", params)
    return seeded_by, [tuple(row["ids"]) for row in rows]
