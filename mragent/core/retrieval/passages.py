"""Stage 1b: passage seeding, so the graph starts from the passages a question names.

Cue search matches the question against short cue texts (tag names, keywords).
A question usually says more about its first-hop passage as a whole than any
single cue does ("the association which published Journal X"), so this stage
also scores the memory's contents by Okapi BM25 over title and text, and turns
the best of them into entry cues that compete with cue-search hits for the same
``cueK`` entry points: each seed enters the graph at the cue of its primary tag
(the content's title; every tag has a cue of the same text), with a score scaled
like a cue's, top seed 1.0. The traversal then runs from all entry points as
usual.

Bridges: ``traverse.cypher`` walks, in the same round trip, from each seed passage the
literal ``(Content)<-[:REFERENCES]-(Tag)-[:LINKED_TO]->(Tag)-[:REFERENCES]->
(Content)`` hop to the passages its text mentions by title (the extractor's
title gazetteer puts those titles among its tags): the second hop of a bridge
question. It counts as a second LINKED_TO hop, so it runs only at
``traversalDepth`` >= 2.

Finally :func:`blend` orders the pool: the passage's own BM25 relevance, plus
the bridge evidence, plus ``GRAPH_WEIGHT`` times the reranked graph score. Every
gene still acts: ``cueK`` bounds seeds and cues together, depth/fanout/prune
bound the traversal, rerank orders the graph score, maxContent cuts the context.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mragent.core.retrieval.cue_search import CueHit, CueIndex
from mragent.core.retrieval.reconstruct import Candidate
from mragent.core.retrieval.rerank import Ranked
from mragent.core.retrieval.sparse import BM25

SEED_FLOOR = 0.2  # seeds scoring under this share of the best seed are not evidence
BRIDGE_WEIGHT = 1.0  # weight of "a relevant passage mentions this one by title"
GRAPH_WEIGHT = 0.3  # weight of the reconstruction's own (reranked) score
# Nodes and edges of one bridge row: seed, its tag, the mentioned tag, the bridged
# content, and the three edges between them.
BRIDGE_ELEMENTS = 7


class PassageSeeder:
    """BM25 over a memory's contents, mapped onto the cues of their titles.

    Args:
        contents: Snapshot rows with ``key``, ``title`` and ``text``.
        cues: The memory's cue index (to find each title's cue).
    """

    def __init__(self, contents: Sequence[dict[str, Any]], cues: CueIndex) -> None:
        self.rows = list(contents)
        self.position = {row["id"]: i for i, row in enumerate(self.rows)}
        self.keys = [row["key"] for row in contents]
        self.bm25 = BM25([f"{row['title'] or ''} {row['text']}" for row in contents])
        by_text = {text: cue_id for cue_id, text in zip(cues.ids, cues.texts, strict=True)}
        self.cue_of = [by_text.get(row["title"] or "") for row in contents]
        self.cue_texts = [row["title"] or "" for row in contents]
        self.seed_content: dict[str, str] = {}  # seed cue id -> the content it seeds

    def relevance(self, question: str, scores: dict[int, float] | None = None) -> dict[str, float]:
        """Content key -> BM25 score (or the given ``scores``, by snapshot position)
        scaled so the best content scores 1.0."""
        scores = self.bm25.scores(question) if scores is None else scores
        top = max(scores.values(), default=0.0)
        if top <= 0:
            return {}
        return {self.keys[i]: value / top for i, value in scores.items()}

    def seeds(self, question: str, k: int, scores: dict[int, float] | None = None) -> list[CueHit]:
        """Entry cues for the ``k`` most relevant contents that have a title cue, by
        BM25 (or the given ``scores``, by snapshot position)."""
        if scores is None:
            ranked = self.bm25.top(question, k * 2)
        else:
            ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[: k * 2]
        top = ranked[0][1] if ranked and ranked[0][1] > 0 else 1.0
        out: list[CueHit] = []
        for position, value in ranked:
            cue_id = self.cue_of[position]
            if cue_id is None or value / top < SEED_FLOOR:
                continue
            self.seed_content[cue_id] = self.rows[position]["id"]
            out.append(CueHit(cue_id, self.cue_texts[position], 0.0, value, value, value / top))
            if len(out) == k:
                break
        return out

    def candidate(self, position: int, hops: int = 0) -> Candidate:
        """A content as a candidate without trails."""
        row = self.rows[position]
        return Candidate(
            row["id"], row["key"], row["title"] or "", row["text"], 0.0, 0, 0, hops, ()
        )

    def seed_ids(self, seeds: list[CueHit], depth: int) -> list[str]:
        """Content ids of the seed passages to walk bridges from (none below depth 2)."""
        if depth < 2:
            return []
        return [self.seed_content[s.id] for s in seeds if s.id in self.seed_content]

    def bridges(self, seeds: list[CueHit], depth: int, rows: list[tuple[str, str]]) -> BridgeWalk:
        """The seed passages, and the contents they mention by title.

        A bridge is a ``LINKED_TO`` hop beyond the seed's own tag, the second
        hop of the traversal shape, so it is walked only when ``depth`` >= 2.

        Args:
            seeds: The passage seeds among the entry cues.
            depth: The genome's traversalDepth.
            rows: ``(seed id, bridged id)`` pairs the traversal's round trip walked.
        """
        weight = {self.seed_content[s.id]: s.score for s in seeds if s.id in self.seed_content}
        if not weight:
            return BridgeWalk({}, [], 0)
        if depth < 2:
            return BridgeWalk({}, [self.candidate(self.position[cid]) for cid in weight], 0)
        found: dict[str, float] = {}
        for seed_id, content_id in rows:
            found[content_id] = found.get(content_id, 0.0) + weight[seed_id]
        extra = [self.candidate(self.position[cid]) for cid in weight]
        extra += [
            self.candidate(self.position[cid], hops=1) for cid in found if cid in self.position
        ]
        return BridgeWalk(found, extra, BRIDGE_ELEMENTS * len(rows))


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


def merge_cues(found: list[CueHit], seeds: list[CueHit], k: int) -> list[CueHit]:
    """The ``k`` strongest of cue-search hits and passage seeds, one hit per cue.

    Seeds compete for the same ``cueK`` entry points as cues, so cueK bounds
    every entry (ties: the better rank in its own list, seeds before cues: a
    passage the question is about is a stronger entry than a single cue).
    """
    order: dict[str, tuple[float, int, CueHit]] = {}
    for rank, hit in [*enumerate(seeds), *enumerate(found)]:
        key = (-hit.score, rank, hit)
        if hit.id not in order or key[:2] < order[hit.id][:2]:
            order[hit.id] = key
    return [hit for _, _, hit in sorted(order.values(), key=lambda item: item[:2])][:k]


def blend(
    ranked: list[Ranked],
    relevance: dict[str, float],
    bridges: dict[str, float],
    extra: Sequence[Candidate],
    pool: int,
) -> list[Ranked]:
    """The final order: passage relevance, bridge evidence and graph score.

    ``score = relevance + BRIDGE_WEIGHT·bridge·(0.5 + 0.5·relevance)
    + GRAPH_WEIGHT·graph / best graph``, where ``bridge`` sums the relevance of
    the seeds that mention the content by title. ``extra`` are contents the
    graph did not return (the most relevant passages and the bridged ones);
    the ``pool`` best are kept (ties: graph order, then ``extra`` order).
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
        rel = relevance.get(cand.key, 0.0)
        bridge = bridges.get(cand.id, 0.0)
        value = rel + BRIDGE_WEIGHT * bridge * (0.5 + 0.5 * rel) + GRAPH_WEIGHT * graph
        scored.append((value, i, Ranked(cand, value, rank)))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [r for _, _, r in scored[:pool]]
