"""Stage 3a: rerank by score propagation over the reconstructed subgraph (``gnn``).

The subgraph is the union of the surviving trails: entry cues, tags and
contents. Two rounds of message passing, without learned weights:

1. each content's own signal is the noisy-OR of its trails' evidence, so a
   content reached by several strong paths rises above one reached by a single
   path of the same strength;
2. each tag takes the mean signal of the contents it leads to, and each
   content blends its own signal with the mean of its tags' signals, so a
   content sharing tags with strong contents rises too.

``ppr`` is Personalized PageRank over the same subgraph (its trails' edges, taken
both ways, each weighted by the strongest trail crossing it), restarting at the
entry cues in proportion to their scores with probability ``1 - damping``: a
content reached from several strong entries, or sharing tags with contents that
are, gathers more of the walk. In numpy by power iteration: the subgraph is a few
hundred nodes at most, so a dense matrix costs less than building a sparse one
(and the engines' own PageRank procedures rank whole graphs, not one question's
trails, nor do FalkorDB and Neo4j Community share one).

``none`` keeps the traversal's evidence order.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from mragent.core.genome import Rerank
from mragent.core.retrieval.reconstruct import Candidate

SELF_WEIGHT = 0.6
ROUNDS = 2


@dataclass(frozen=True)
class Ranked:
    """A candidate with its final score and its rank before reranking."""

    candidate: Candidate
    score: float
    evidence_rank: int


def _support(candidate: Candidate) -> float:
    miss = 1.0
    for trail in candidate.trails:
        miss *= 1.0 - min(trail.evidence, 1.0)
    return 1.0 - miss


def propagate(candidates: list[Candidate]) -> dict[str, float]:
    """Content id -> propagated score."""
    tags_of: dict[str, set[str]] = {}
    for cand in candidates:
        # Interior trail nodes are tags (the first is the cue, the last the content).
        tags_of[cand.id] = {node for trail in cand.trails for node in trail.nodes[1:-1]}
    score = {cand.id: _support(cand) for cand in candidates}
    own = dict(score)
    for _ in range(ROUNDS):
        tag_sum: dict[str, float] = defaultdict(float)
        tag_deg: dict[str, int] = defaultdict(int)
        for cid, tags in tags_of.items():
            for tag in tags:
                tag_sum[tag] += score[cid]
                tag_deg[tag] += 1
        new = {}
        for cid, tags in tags_of.items():
            # fsum is exact: the set's hash order (per process) cannot move a score.
            mean = math.fsum(tag_sum[t] / tag_deg[t] for t in tags) / len(tags) if tags else 0.0
            new[cid] = SELF_WEIGHT * own[cid] + (1 - SELF_WEIGHT) * mean
        score = new
    return score


PPR_ITERATIONS = 40
PPR_TOLERANCE = 1e-10


def personalized_pagerank(
    candidates: list[Candidate], entries: Mapping[str, float], damping: float
) -> dict[str, float]:
    """Content id -> its share of a walk that restarts at the entry cues.

    Args:
        candidates: The traversal's contents; their trails are the subgraph.
        entries: Entry cue id -> its score (the restart distribution, normalised).
        damping: Probability of following an edge rather than restarting.
    """
    index: dict[str, int] = {}
    edges: dict[tuple[int, int], float] = {}
    for cand in candidates:
        for trail in cand.trails:
            ids = [index.setdefault(node, len(index)) for node in trail.nodes]
            for a, b in pairwise(ids):
                for edge in ((a, b), (b, a)):
                    edges[edge] = max(edges.get(edge, 0.0), trail.evidence)
    if not index:
        return {}
    size = len(index)
    weights = np.zeros((size, size))
    for (a, b), value in edges.items():
        weights[b, a] = value  # column a: where a walker at a goes next
    out = weights.sum(axis=0)
    transition = np.divide(weights, out, out=np.zeros_like(weights), where=out > 0)
    restart = np.zeros(size)
    for cue, score in entries.items():
        if cue in index:
            restart[index[cue]] = max(score, 0.0)
    if restart.sum() <= 0:
        restart[:] = 1.0
    restart /= restart.sum()
    rank = restart.copy()
    for _ in range(PPR_ITERATIONS):
        walked = transition @ rank
        # A walker at a node without edges restarts (keeps the vector a distribution).
        new = damping * walked + (1.0 - damping * walked.sum()) * restart
        if float(np.abs(new - rank).sum()) < PPR_TOLERANCE:
            rank = new
            break
        rank = new
    return {cand.id: float(rank[index[cand.id]]) for cand in candidates if cand.id in index}


def rerank(
    candidates: list[Candidate],
    method: Rerank,
    entries: Mapping[str, float] | None = None,
    damping: float = 0.5,
) -> list[Ranked]:
    """Order candidates by the chosen method (ties: evidence order).

    Args:
        candidates: The traversal's contents, strongest evidence first.
        method: ``gnn``, ``ppr`` or ``none``.
        entries: Entry cue id -> score, the restart distribution of ``ppr``.
        damping: ``ppr``'s probability of following an edge.
    """
    if method is Rerank.NONE:
        return [Ranked(c, c.evidence, i) for i, c in enumerate(candidates)]
    if method is Rerank.PPR:
        scores = personalized_pagerank(candidates, entries or {}, damping)
    else:
        scores = propagate(candidates)
    order = sorted(range(len(candidates)), key=lambda i: (-scores[candidates[i].id], i))
    return [Ranked(candidates[i], scores[candidates[i].id], i) for i in order]
