"""Stage 2: reconstruction, as one Cypher round trip per question.

Runs ``traverse.cypher`` (the literal ``(c:Cue)-[:LINKED_TO*1..N]->(t:Tag)
-[:REFERENCES]->(m:Content)`` shape) with ``N`` = ``traversalDepth`` rendered
from the range-checked genome, and everything else as parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

from mragent.genome import Genome
from mragent.retrieval.cue_search import CueHit
from mragent.store.base import GraphStore

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


def reconstruct(store: GraphStore, ns: str, cues: list[CueHit], genome: Genome) -> list[Candidate]:
    """Expand entry cues into candidate contents, strongest evidence first."""
    if not cues:
        return []
    rows = store.run(
        "traverse",
        {
            "ns": ns,
            "cues": [{"id": cue.id, "score": cue.score} for cue in cues],
            "fanout": genome.tagFanout,
            "decay": HOP_DECAY,
            "prune": genome.pruneThreshold,
            "limit": genome.maxContent * POOL_FACTOR,
            "paths_per_content": TRAILS_PER_CONTENT,
        },
        depth=genome.traversalDepth,
    )
    return [
        Candidate(
            id=row["content_id"],
            key=row["key"],
            title=row["title"] or "",
            text=row["text"],
            evidence=float(row["evidence"]),
            paths=int(row["paths"]),
            elements=int(row["elements"]),
            hops=int(row["best_hops"]),
            trails=tuple(
                Trail(tuple(t["nodes"]), float(t["evidence"]), int(t["hops"]))
                for t in row["trails"]
            ),
        )
        for row in rows
    ]
