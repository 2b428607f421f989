"""The bridge walk's share of a reconstruction, and the final order of the pool.

Bridges: ``traverse.cypher`` walks, in the same round trip as the traversal,
from each confirmed seed passage the literal ``(Content)<-[:REFERENCES]-(Tag)
-[:LINKED_TO]->(Tag)-[:REFERENCES]->(Content)`` hop to the passages its text
mentions by title (the extractor's title gazetteer puts those titles among its
tags): the second hop of a bridge question. It counts as a second LINKED_TO
hop, so it runs only at ``traversalDepth`` >= 2.

Finally :func:`blend` orders the pool: the passage's own BM25 relevance, plus
the bridge evidence, plus ``GRAPH_WEIGHT`` times the reranked graph score. Every
gene still acts: ``cueK`` bounds seeds and cues together, depth/fanout/prune
bound the traversal, rerank orders the graph score, maxContent cuts the context.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mragent.core.retrieval.cue_search import CueHit
from mragent.core.retrieval.reconstruct import Candidate
from mragent.core.retrieval.rerank import Ranked

BRIDGE_WEIGHT = 1.0  # weight of "a relevant passage mentions this one by title"
GRAPH_WEIGHT = 0.3  # weight of the reconstruction's own (reranked) score
# Nodes and edges of one bridge row: seed, its tag, the mentioned tag, the bridged
# content, and the three edges between them.
BRIDGE_ELEMENTS = 7


@dataclass(frozen=True)
class BridgeWalk:
    """What the bridge walk found and what it touched.

    Attributes:
        scores: Content id -> summed score of the seeds mentioning it.
        extra: The seed and bridged contents as candidates.
        elements: Graph elements on the walked patterns (the walk's share of work).
    """

    scores: dict[str, float]
    extra: list[Candidate]
    elements: int


def bridge_walk(
    seeds: Sequence[tuple[CueHit, Candidate]],
    depth: int,
    rows: Sequence[tuple[str, Candidate]],
) -> BridgeWalk:
    """The seed passages, and the contents they mention by title.

    A bridge is a ``LINKED_TO`` hop beyond the seed's own tag, the second hop of
    the traversal shape, so it counts only when ``depth`` >= 2.

    Args:
        seeds: The confirmed passage seeds among the entry cues, with their contents.
        depth: The genome's traversalDepth.
        rows: ``(seed content id, bridged content)`` pairs the round trip walked.
    """
    weight: dict[str, float] = {}
    extra: dict[str, Candidate] = {}
    for hit, content in seeds:
        weight.setdefault(content.id, hit.score)
        extra.setdefault(content.id, content)
    if not weight or depth < 2:
        return BridgeWalk({}, list(extra.values()), 0)
    found: dict[str, float] = {}
    bridged: dict[str, Candidate] = {}
    for seed_id, content in rows:
        found[content.id] = found.get(content.id, 0.0) + weight[seed_id]
        bridged.setdefault(content.id, content)
    for content_id, content in bridged.items():
        extra.setdefault(content_id, content)
    return BridgeWalk(found, list(extra.values()), BRIDGE_ELEMENTS * len(rows))


def blend(
    ranked: list[Ranked],
    relevance: Mapping[str, float],
    bridges: Mapping[str, float],
    extra: Sequence[Candidate],
    pool: int,
) -> list[Ranked]:
    """The final order: passage relevance, bridge evidence and graph score.

    ``score = relevance + BRIDGE_WEIGHT·bridge·(0.5 + 0.5·relevance)
    + GRAPH_WEIGHT·graph / best graph``, where ``relevance`` is keyed by content
    id and ``bridge`` sums the relevance of the seeds that mention the content by
    title. ``extra`` are contents the graph did not return (the most relevant
    passages and the bridged ones); the ``pool`` best are kept (ties: graph
    order, then ``extra`` order).
    """
    top = max((r.score for r in ranked), default=0.0) or 1.0
    items = [(r.candidate, r.score / top, r.evidence_rank) for r in ranked]
    seen = {c.key for c, _, _ in items}
    for cand in extra:
        if cand.key not in seen:
            seen.add(cand.key)
            items.append((cand, 0.0, len(items)))
    scored = []
    for i, (cand, graph, rank) in enumerate(items):
        rel = relevance.get(cand.id, 0.0)
        bridge = bridges.get(cand.id, 0.0)
        value = rel + BRIDGE_WEIGHT * bridge * (0.5 + 0.5 * rel) + GRAPH_WEIGHT * graph
        scored.append((value, i, Ranked(cand, value, rank)))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [r for _, _, r in scored[:pool]]
