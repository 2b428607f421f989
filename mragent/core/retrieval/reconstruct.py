"""Stage 2: reconstruction (and the bridge walk), as one Cypher round trip per question.

Runs ``traverse.cypher`` (the literal ``(c:Cue)-[:LINKED_TO*1..N]->(t:Tag)
-[:REFERENCES]->(m:Content)`` shape) with ``N`` = ``traversalDepth`` rendered
from the range-checked genome, and everything else as parameters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mragent.core.genome import Genome
from mragent.core.retrieval.cue_search import CueHit
from mragent.core.store.base import GraphStore
from mragent.core.view import ReadView

HOP_DECAY = 0.8  # evidence kept per LINKED_TO hop beyond the first
POOL_FACTOR = 2  # candidates fetched per content kept, so rerank has room to act
TRAILS_PER_CONTENT = 4


@dataclass(frozen=True)
class Trail:
    """One path from an entry cue to a content: node ids, cue first."""

    nodes: tuple[str, ...]
    evidence: float
    hops: int


@dataclass(frozen=True)
class Candidate:
    """A content reached by reconstruction."""

    id: str
    key: str
    title: str
    text: str
    evidence: float  # strongest single path
    paths: int  # surviving paths that reach it
    elements: int  # graph elements (nodes + edges) on those paths
    hops: int  # LINKED_TO hops on its shortest surviving path
    trails: tuple[Trail, ...]


class ContentTexts:
    """Key, title and text of contents by id, fetched once and kept.

    The traversal returns ids only; a memory is read far more often than it is
    written, so texts are looked up here instead of travelling with every path.
    """

    def __init__(self, rows: list[dict[str, Any]] | None = None) -> None:
        self._rows: dict[str, dict[str, Any]] = {row["id"]: row for row in rows or []}

    def get(
        self, store: GraphStore, ns: str, view: ReadView, ids: list[str]
    ) -> dict[str, dict[str, Any]]:
        """Rows for ``ids``, fetching (one round trip) any not yet known."""
        missing = [i for i in ids if i not in self._rows]
        if missing:
            params = {"ns": ns, **view.params(), "ids": missing}
            for row in store.run("contents_by_id", params):
                self._rows[row["id"]] = row
        return self._rows


@dataclass(frozen=True)
class Traversal:
    """One round trip's answer: the reconstructed contents and the bridge rows.

    Attributes:
        candidates: Contents reached from the entry cues, strongest evidence first.
        bridges: ``(seed content id, bridged content id)`` pairs of the bridge walk.
    """

    candidates: list[Candidate]
    bridges: list[tuple[str, str]]


def traverse(
    store: GraphStore,
    ns: str,
    view: ReadView,
    cues: list[CueHit],
    genome: Genome,
    texts: ContentTexts | None = None,
    seeds: Sequence[str] = (),
) -> Traversal:
    """Expand entry cues into candidate contents and walk the bridges of ``seeds``.

    Args:
        store: The graph store.
        ns: Namespace.
        view: Scopes, trust states and record time read (see :mod:`mragent.core.view`).
        cues: Entry cues with scores in (0, 1].
        genome: Supplies depth, fanout, prune threshold and maxContent.
        texts: Known content texts (a fresh cache when omitted).
        seeds: Content ids of passage seeds to walk the bridge hop from.
    """
    if not cues and not seeds:
        return Traversal([], [])
    rows = store.run(
        "traverse",
        {
            "ns": ns,
            **view.params(),
            "pending_weight": view.pending_weight,
            "cues": [{"id": cue.id, "score": cue.score} for cue in cues],
            "fanout": genome.tagFanout,
            "decay": HOP_DECAY,
            "prune": genome.pruneThreshold,
            "limit": genome.maxContent * POOL_FACTOR,
            "paths_per_content": TRAILS_PER_CONTENT,
            "seeds": list(seeds),
        },
        depth=genome.traversalDepth,
    )
    bridges = [(row["seed_id"], row["content_id"]) for row in rows if row["seed_id"] is not None]
    found = [row for row in rows if row["seed_id"] is None]
    # The query's UNION does not promise the traversal branch's order: restore it.
    found.sort(key=lambda row: (-float(row["evidence"]), row["key"]))
    if not found:
        return Traversal([], bridges)
    known = (texts or ContentTexts()).get(store, ns, view, [row["content_id"] for row in found])
    return Traversal([_candidate(row, known[row["content_id"]]) for row in found], bridges)


def _candidate(row: dict[str, Any], content: dict[str, Any]) -> Candidate:
    """A traversal row and its content's known title and text, as a candidate."""
    return Candidate(
        id=row["content_id"],
        key=row["key"],
        title=content["title"] or "",
        text=content["text"],
        evidence=float(row["evidence"]),
        paths=int(row["paths"]),
        elements=int(row["elements"]),
        hops=int(row["best_hops"]),
        # Each trail is [evidence, hops, node ids...]: flat lists parse fastest.
        trails=tuple(
            Trail(tuple(trail[2:]), float(trail[0]), int(trail[1])) for trail in row["trails"]
        ),
    )
