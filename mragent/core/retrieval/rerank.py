"""Stage 3a: rerank by score propagation over the reconstructed subgraph (``gnn``).

The subgraph is the union of the surviving trails: entry cues, tags and
contents. Two rounds of message passing, without learned weights:

1. each content's own signal is the noisy-OR of its trails' evidence, so a
   content reached by several strong paths rises above one reached by a single
   path of the same strength;
2. each tag takes the mean signal of the contents it leads to, and each
   content blends its own signal with the mean of its tags' signals, so a
   content sharing tags with strong contents rises too.

``none`` keeps the traversal's evidence order.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

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


def rerank(candidates: list[Candidate], method: Rerank) -> list[Ranked]:
    """Order candidates by the chosen method (ties: evidence order)."""
    if method is Rerank.NONE:
        return [Ranked(c, c.evidence, i) for i, c in enumerate(candidates)]
    scores = propagate(candidates)
    order = sorted(range(len(candidates)), key=lambda i: (-scores[candidates[i].id], i))
    return [Ranked(candidates[i], scores[candidates[i].id], i) for i in order]
