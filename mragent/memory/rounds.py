"""Multi-round reconstruction on a reader's indexes (``rounds`` > 1).

Round 1 is the usual round trip, except that its passage seeds are the contents
of highest own relevance (:class:`~mragent.core.retrieval.rounds.ChainScores`)
and every content it returns carries its specific tags. Each later round is one
more ``traverse.cypher`` round trip whose entry cues are the tags handed on by
the ``roundCues`` best contents of the round before (and, in round 2, the seeds
of the relevant passages no round trip has returned yet, so that the final
order ranks every relevant passage with its text). A content reached from a
cue some content handed on is a chain through that content, and so is one
reached from a seed's own cue or bridged from a seed. Later rounds read the
handed tags' own contents (depth 1) at most ``tagFanout`` per tag, and with
``aliasWeight`` > 0 those of the tags they are aliases of (one more hop, along
alias edges alone). The loop stops after ``rounds`` round trips, or after a round
that raised no value.

Every text comes from a round trip under the read view; this module only
chooses the next round's cues and scores what came back.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from mragent.core.genome import Genome
from mragent.core.retrieval.cue_search import CueHit, top_positions
from mragent.core.retrieval.passage_dense import FUSED_BM25
from mragent.core.retrieval.passages import merge_cues
from mragent.core.retrieval.reconstruct import (
    POOL_FACTOR,
    Candidate,
    Traversal,
    traverse,
    walks_aliases,
)
from mragent.core.retrieval.rounds import ChainScores, Population, handed_tags
from mragent.core.store.base import GraphStore
from mragent.core.text import content_words
from mragent.core.view import ReadView
from mragent.memory.live_index import LiveIndex

ENTRY_FLOOR = 0.05  # the entry score of the least valued cue a round enters at
# Contents a later round trip returns, per content the context holds: twice the first
# round's pool (on MuSiQue-100 with e5-small, 40 keep every chain the unbounded
# fetch finds; 20 lose half a point of R@5).
LATER_LIMIT = 2 * POOL_FACTOR


@dataclass
class RoundsState:
    """One question's rounds so far."""

    chains: ChainScores
    pool: list[str]  # the most relevant contents by own relevance, best first
    indexed: Mapping[str, int]  # the contents the reader's index holds, by id
    traversals: list[Traversal] = field(default_factory=list)
    returned: dict[str, Candidate] = field(default_factory=dict)  # id -> with its text
    handed: set[str] = field(default_factory=set)  # contents whose tags were handed on
    raised: list[str] = field(default_factory=list)  # last round's raised values


def start(
    index: LiveIndex,
    question: str,
    vector: np.ndarray,
    masks: tuple[np.ndarray, np.ndarray],
    population: Population,
    genome: Genome,
) -> RoundsState:
    """Score the question's most relevant passages (dense hits and BM25's best)."""
    passages = index.passages
    mask = masks[1]
    bm25 = passages.sparse.scores(content_words(question), mask)
    admitted = max(1, int(np.count_nonzero(mask)))
    # Exactly rounded sums: the same value whatever order the engine stored contents in.
    mean = math.fsum(bm25.scores.tolist()) / admitted
    spread = math.sqrt(max(math.fsum((bm25.scores**2).tolist()) / admitted - mean**2, 0.0))

    def bm25_of(content_id: str) -> float:
        slot = passages.slot_of[content_id]
        i = int(np.searchsorted(bm25.slots, slot))
        return float(bm25.scores[i]) if i < len(bm25.slots) and bm25.slots[i] == slot else 0.0

    def vectors(content_ids: list[str]) -> np.ndarray:
        return passages.dense.vectors(np.array([passages.slot_of[c] for c in content_ids]))

    chains = ChainScores(
        vector, vectors, bm25_of, (mean, spread or 1.0), population,
        genome.hybridAlpha, genome.roundDecay,
        key=lambda content_id: passages.keys[passages.slot_of[content_id]],
    )  # fmt: skip
    near = passages.dense.search(vector, genome.efSearch, mask)
    best = top_positions(bm25.scores, bm25.slots, FUSED_BM25, passages.keys)
    pool = [passages.ids[slot] for slot in near]
    pool += [passages.ids[int(bm25.slots[i])] for i in best]
    chains.known(pool)
    return RoundsState(chains, chains.best(pool, len(pool)), passages.slot_of)


def seed_hits(
    state: RoundsState, index: LiveIndex, cue_mask: np.ndarray, content_ids: Sequence[str]
) -> list[CueHit]:
    """Passage seeds for contents: each enters at its title cue, scored by its value."""
    passages, cues = index.passages, index.cues
    scaled = state.chains.scaled()
    out = []
    for cid in content_ids:
        slot = passages.slot_of[cid]
        cue = cues.by_text.get((passages.scopes[slot], passages.titles[slot]))
        if cue is None or not cue_mask[cue]:
            continue
        value = state.chains.value[cid]
        score = max(scaled[cid], ENTRY_FLOOR)
        out.append(CueHit(cues.ids[cue], passages.titles[slot], 0.0, value, value, score, cid))
    return out


def absorb(state: RoundsState, found: Traversal, handing: dict[str, list[str]]) -> None:
    """Take a round trip's contents in: own relevance, and the chains through the
    contents that handed on the cues they were reached from."""
    chains = state.chains
    contents = [c for _, c in found.seeds] + found.candidates + [c for _, c in found.bridges]
    # A content written after the reader's version is unknown to its index; the reader
    # then answers again from its refreshed index (MemoryReader.reconstruct), so pass it by.
    contents = [c for c in contents if c.id in state.indexed]
    for cand in contents:
        state.returned.setdefault(cand.id, cand)
    chains.known(c.id for c in contents)
    raised: list[str] = []
    for cand in found.candidates:
        if cand.id not in state.indexed:
            continue
        for trail in cand.trails:
            for via in handing.get(trail.nodes[0], ()):
                raised += chains.chain(via, [cand.id])
    for seed_id, cand in found.bridges:
        if cand.id in state.indexed and seed_id in state.indexed:
            raised += chains.chain(seed_id, [cand.id])
    state.traversals.append(found)
    state.raised = list(dict.fromkeys(raised))


def next_round(
    state: RoundsState,
    index: LiveIndex,
    question: str,
    cue_mask: np.ndarray,
    genome: Genome,
) -> tuple[list[CueHit], dict[str, list[str]]]:
    """The next round's entry cues, and for each cue the contents that handed it on."""
    cues, passages, chains = index.cues, index.passages, state.chains
    first = len(state.traversals) == 1
    among = state.returned if first else state.raised
    frontier = [c for c in chains.best(among, len(among)) if c not in state.handed]
    frontier = frontier[: genome.roundCues]
    scaled = chains.scaled()
    handing: dict[str, list[str]] = {}
    hits: list[CueHit] = []
    for cid in frontier:
        state.handed.add(cid)
        scope = passages.scopes[passages.slot_of[cid]]
        # By name: the database hands a content's tags back in its storage order.
        for tag in handed_tags(sorted(state.returned[cid].tags), question):
            slot = cues.by_text.get((scope, tag))
            if slot is None or not cue_mask[slot]:
                continue
            handing.setdefault(cues.ids[slot], []).append(cid)
            hits.append(CueHit(cues.ids[slot], tag, 0.0, 0.0, 0.0, max(scaled[cid], ENTRY_FLOOR)))
    seeds: list[CueHit] = []
    if first:  # the relevant passages no round trip returned yet, with their texts
        wanted = genome.maxContent * POOL_FACTOR
        missing = [c for c in state.pool[:wanted] if c not in state.returned]
        seeds = seed_hits(state, index, cue_mask, missing)
        for hit in seeds:
            handing.setdefault(hit.id, []).extend([hit.seed] if hit.seed else [])
    return merge_cues(hits, seeds), handing


def later_rounds(
    state: RoundsState,
    store: GraphStore,
    ns: str,
    view: ReadView,
    index: LiveIndex,
    question: str,
    cue_mask: np.ndarray,
    genome: Genome,
    records: bool = False,
) -> None:
    """Run rounds 2.. until ``rounds`` round trips, a round raising no value, or no cue
    left to enter at (a namespace gone midway ends the loop too); ``records``: each
    round trip brings its contents' provenance."""
    while len(state.traversals) < genome.rounds:
        if len(state.traversals) > 1 and not state.raised:
            return
        hits, handing = next_round(state, index, question, cue_mask, genome)
        if not hits:
            return
        # With aliases walked, one more hop beyond the handed tags, along aliases alone:
        # a content handing on "Obama" leads to the passage about "Barack Obama".
        aliases = walks_aliases(genome)
        found = traverse(
            store, ns, view, hits, genome,
            bridges=False, entries=len(hits), limit=LATER_LIMIT * genome.maxContent,
            depth=2 if aliases else 1, link_fanout=0 if aliases else None,
            hand_on=len(state.traversals) + 1 < genome.rounds, records=records,
        )  # fmt: skip
        if found is None:
            return
        absorb(state, found, handing)


def merged(
    state: RoundsState, extra: Sequence[Candidate]
) -> tuple[list[Candidate], list[Candidate]]:
    """Every round's traversed contents (the first round trip's copy of each), and the
    contents returned without a path (seeds, bridged) beside ``extra``."""
    traversed: dict[str, Candidate] = {}
    for found in state.traversals:
        for cand in found.candidates:
            traversed.setdefault(cand.id, cand)
    plain = {c.id: c for c in extra}
    for found in state.traversals[1:]:
        for _, cand in found.seeds:
            plain.setdefault(cand.id, cand)
    return list(traversed.values()), [c for c in plain.values() if c.id not in traversed]
