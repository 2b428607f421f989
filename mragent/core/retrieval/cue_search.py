"""Stage 1: hybrid cue search over an incrementally maintained cue index.

Dense: an HNSW index (hnswlib) over cue embeddings, searched with ``ef`` =
``efSearch``. Sparse: BM25 over cue texts (:mod:`mragent.core.retrieval.sparse_index`).
The two are fused (``fusion``, weighted by ``hybridAlpha``) and the best cues
become entry candidates, their fused scores scaled to (0, 1] so the traversal's
evidence is comparable across questions.

The index follows a namespace's change feed: cues are added, re-embedded and
dropped one at a time (:meth:`CueIndex.add`, :meth:`CueIndex.drop`); a dropped
cue is marked deleted in HNSW and leaves the sparse postings' live mask. Slots
(the HNSW labels) are never reused. Cues of every scope are held; a search
admits only the view's scopes. Which cue may be an entry point under the view is
decided by the database, in the traversal's round trip: the index proposes
candidates, it never vouches for them.

Ties break on the cue text, never on a random id, so every engine and every
build order gives the same ranking.
"""

from __future__ import annotations

import heapq
import os
from collections.abc import Callable, Iterable, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any

import hnswlib
import numpy as np

from mragent.core.genome import Genome
from mragent.core.retrieval.fusion import Side, fuse
from mragent.core.retrieval.selection import kth_largest
from mragent.core.retrieval.slot_keys import SlotKeys
from mragent.core.retrieval.sparse_index import SparseHits, SparseIndex
from mragent.core.store.base import GraphStore
from mragent.core.string_arrays import StringColumn
from mragent.core.text import content_words

HNSW_M = 16
HNSW_EF_CONSTRUCTION = 200
HNSW_SEED = 100
DENSE_CANDIDATES = 32  # dense hits fused per question, capped by efSearch
NATIVE_FETCH_MAX = 16_384  # the most hits asked of the shared native vector index
_GROW = 1.5
BULK_THREADS_MIN = 50_000
"""The fewest vectors one full build must add for hnswlib to insert them on every CPU.

A threaded insert builds a graph that depends on how the threads interleave, and so
does what a search finds in it: over the reference corpus's 416 cue vectors (hashing
embedder), a two-thread build found other nearest cues than the one-thread build for
20-29% of its 35 questions at efSearch 16-32 and 3% at 64, build after build, which
would move the pinned reconstruction rows. So a refresh, and any full build below
this size, inserts on one thread and is the same on every run. A reader's cold full
build of at least this many vectors (over twice the largest pinned or
quality-guarded namespace: MuSiQue's pool has about 20k cues) inserts on every CPU
it may use; its graph, and a dense search's approximate neighbours in it, may then
differ from one such build to the next. The copy that reader saves is what later
readers of that version load, so they share one graph. (A build independent of
thread timing would insert into several one-thread shards and merge their hits:
another index, not this one.)"""


@dataclass(frozen=True)
class CueHit:
    """One entry cue (or entry candidate) with the scores that chose it.

    ``seed`` is the id of the content a passage seed enters for (None for a
    cue-search hit).
    """

    id: str
    text: str
    dense: float
    sparse: float
    fused: float
    score: float  # fused scaled to (0, 1]: the evidence the traversal starts from
    seed: str | None = None


class CueIndex:
    """Dense and sparse indexes over one namespace's cues, by slot.

    Args:
        dimension: The embedding dimension.
    """

    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self.ids: StringColumn = []
        self.texts = SlotKeys()
        self.scopes: list[str] = []
        self.live = np.zeros(0, dtype=bool)
        self.scope_codes = np.zeros(0, dtype=np.int16)
        self.scope_names: list[str] = []
        self.slot_of: MutableMapping[str, int] = {}
        self.by_text: MutableMapping[tuple[str, str], int] = {}  # (scope, text) -> live slot
        self.hnsw = new_hnsw(dimension)
        self.sparse = SparseIndex()

    def __len__(self) -> int:
        return int(np.count_nonzero(self.live))

    # -- maintenance -----------------------------------------------------------------

    def add(self, rows: Iterable[dict[str, Any]], *, bulk: bool = False) -> int:
        """Add cues, or give known ones their new vector, in the given order (it fixes
        the HNSW build).

        Args:
            rows: ``{id, text, scope, embedding}``. A cue's text never changes (it is
                the cue's key); a dropped cue never comes back under its id.
            bulk: A full build (see :data:`BULK_THREADS_MIN` for what it may thread).

        Returns:
            How many rows were applied.
        """
        labels, vectors = [], []
        for row in rows:
            slot = self.slot_of.get(row["id"])
            if slot is None or not self.live[slot]:
                slot = self._new_slot(row)
            self.scopes[slot] = row["scope"]
            self.scope_codes[slot] = self._code(row["scope"])
            labels.append(slot)
            vectors.append(row["embedding"])
        if labels:
            matrix = np.asarray(vectors, dtype=np.float32).reshape(-1, self.dimension)
            threads = insert_threads(len(labels), bulk)
            self.hnsw.add_items(matrix, np.asarray(labels), num_threads=threads)
        return len(labels)

    def _new_slot(self, row: dict[str, Any]) -> int:
        slot = len(self.ids)
        self._reserve(slot + 1)
        self.slot_of[row["id"]] = slot
        self.ids.append(row["id"])
        self.texts.append(row["text"])
        self.scopes.append(row["scope"])
        self.live[slot] = True
        self.by_text[(row["scope"], row["text"])] = slot
        self.sparse.add(slot, content_words(row["text"]))
        return slot

    def _code(self, scope: str) -> int:
        if scope not in self.scope_names:
            self.scope_names.append(scope)
        return self.scope_names.index(scope)

    def drop(self, ids: Iterable[str]) -> int:
        """Remove cues by id (unknown ids are ignored); how many were live."""
        dropped = 0
        for cue_id in ids:
            slot = self.slot_of.get(cue_id)
            if slot is None or not self.live[slot]:
                continue
            self.live[slot] = False
            self.hnsw.mark_deleted(slot)
            self.sparse.remove(slot)
            if self.by_text.get((self.scopes[slot], self.texts[slot])) == slot:
                del self.by_text[(self.scopes[slot], self.texts[slot])]
            dropped += 1
        return dropped

    def _reserve(self, size: int) -> None:
        reserve_hnsw(self.hnsw, size)
        if size > len(self.live):
            grow = max(size, int(len(self.live) * _GROW) + 16) - len(self.live)
            self.live = np.concatenate([self.live, np.zeros(grow, dtype=bool)])
            self.scope_codes = np.concatenate([self.scope_codes, np.zeros(grow, np.int16)])

    # -- search ----------------------------------------------------------------------

    def admitted(self, scopes: Sequence[str]) -> np.ndarray:
        """Live slots whose scope is one of ``scopes``."""
        codes = [i for i, name in enumerate(self.scope_names) if name in scopes]
        return self.live & np.isin(self.scope_codes, codes)

    def dense(
        self, vector: np.ndarray, ef: int, mask: np.ndarray, k: int = DENSE_CANDIDATES
    ) -> dict[str, float]:
        """HNSW search with beam width ``ef`` among ``mask``: cue id -> cosine similarity."""
        near = hnsw_search(self.hnsw, vector, ef, min(k, ef), mask, len(self))
        return {self.ids[slot]: similarity for slot, similarity in near.items()}

    def exact_dense(self, vector: np.ndarray, k: int, mask: np.ndarray) -> dict[str, float]:
        """Brute-force cosine top-k among ``mask``, the ground truth HNSW approximates."""
        slots = np.flatnonzero(mask)
        if not len(slots):
            return {}
        items = np.asarray(self.hnsw.get_items(slots, return_type="numpy"))
        sims = np.round(items @ vector.reshape(-1), SIMILARITY_DECIMALS)
        order = np.argsort(-sims, kind="stable")[:k]
        return {self.ids[int(slots[i])]: float(sims[i]) for i in order}

    def native_dense(
        self,
        store: GraphStore,
        ns: str,
        scopes: Sequence[str],
        vector: np.ndarray,
        mask: np.ndarray,
        k: int = DENSE_CANDIDATES,
    ) -> dict[str, float]:
        """Dense candidates from the database's own vector index, among ``mask``.

        The index spans every namespace and scope of the database, and the view's
        predicate applies after its top-k: the fetch grows (4x per try, up to
        :data:`NATIVE_FETCH_MAX`) until ``k`` of the admitted cues are among the hits.
        """
        caps = store.capabilities
        wanted = min(k, int(np.count_nonzero(mask)))
        fetch = max(k * 8, 64)
        while True:
            rows = store.run(
                "cue_vector_search",
                {"ns": ns, "scopes": list(scopes), "k": fetch, "embedding": vector.tolist()},
            )
            admitted = [
                row
                for row in rows
                if (slot := self.slot_of.get(row["id"])) is not None and mask[slot]
            ]
            if len(admitted) >= wanted or fetch >= NATIVE_FETCH_MAX:
                return {row["id"]: caps.similarity(row["raw_score"]) for row in admitted[:k]}
            fetch *= 4

    def sparse_side(self, question: str, mask: np.ndarray, want: int, extra: Iterable[str]) -> Side:
        """BM25 over cue texts as a fusion side: the ``want`` best cues and ``extra``
        (the dense hits), ranked and normalised within every cue sharing a term."""
        hits = self.sparse.scores(content_words(question), mask)
        slots = [slot for cue_id in extra if (slot := self.slot_of.get(cue_id)) is not None]
        return sparse_side(hits, want, slots, self.texts, self.ids.__getitem__)

    def search(
        self,
        question: str,
        vector: np.ndarray,
        genome: Genome,
        mask: np.ndarray,
        want: int,
        dense_hits: dict[str, float] | None = None,
    ) -> list[CueHit]:
        """The ``want`` best entry candidates for ``question`` under ``genome``.

        Args:
            question: The question text.
            vector: Its embedding.
            genome: Supplies efSearch, hybridAlpha and fusion.
            mask: The slots the view admits (:meth:`admitted`).
            want: How many candidates to return (cueK plus what the database may refuse).
            dense_hits: Precomputed dense candidates (e.g. from the native
                index); by default the HNSW index is searched with efSearch.
        """
        if dense_hits is None:
            dense_hits = self.dense(vector, genome.efSearch, mask)
        named: dict[str, str] = {}  # a cue's text, looked up once per question

        def text(cue_id: str) -> str:
            if (found := named.get(cue_id)) is None:
                found = named[cue_id] = self.texts[self.slot_of[cue_id]]
            return found

        dense = Side.of(dense_hits, text)
        sparse = self.sparse_side(question, mask, want, dense_hits)
        fused = {
            cue_id: value
            for cue_id, value in fuse(genome.fusion, dense, sparse, genome.hybridAlpha).items()
            if value > 0
        }  # a cue only the zero-weighted side found is no evidence
        ranked = sorted(fused.items(), key=lambda item: (-item[1], text(item[0])))[:want]
        top = ranked[0][1] if ranked and ranked[0][1] > 0 else 1.0
        return [
            CueHit(
                cue_id,
                text(cue_id),
                dense_hits.get(cue_id, 0.0),
                sparse.scores.get(cue_id, 0.0),
                value,
                max(value / top, 1e-6),
            )
            for cue_id, value in ranked
        ]


def sparse_side(
    hits: SparseHits,
    want: int,
    extra: Iterable[int],
    keys: SlotKeys,
    name: Callable[[int], str],
) -> Side:
    """A BM25 population as a fusion side: its ``want`` best and the ``extra`` slots that
    are in it, named by ``name(slot)``, ranked (ties: ``keys[slot]``) and normalised
    within the whole population, so fusing them gives the values fusing all would."""
    if not len(hits):
        return Side({}, {})
    best = top_positions(hits.scores, hits.slots, want, keys)
    chosen = {int(hits.slots[i]) for i in best}
    chosen.update(extra)
    held: dict[int, float] = {}
    for slot in chosen:
        i = int(np.searchsorted(hits.slots, slot))
        if i < len(hits.slots) and hits.slots[i] == slot:  # else a dense hit sharing no term
            held[slot] = float(hits.scores[i])
    ranked = population_ranks(hits, held, keys)
    scores = {name(slot): value for slot, value in held.items()}
    ranks = {name(slot): rank for slot, rank in ranked.items()}
    return Side.of_population(scores, ranks, hits.scores)


def new_hnsw(dimension: int) -> hnswlib.Index:
    """An empty cosine HNSW index with the fixed build parameters and seed."""
    index = hnswlib.Index(space="cosine", dim=dimension)
    index.init_index(
        max_elements=16, M=HNSW_M, ef_construction=HNSW_EF_CONSTRUCTION, random_seed=HNSW_SEED
    )
    return index


def insert_threads(count: int, bulk: bool) -> int:
    """The threads hnswlib inserts ``count`` vectors on: one unless a full build
    (``bulk``) brings at least :data:`BULK_THREADS_MIN` of them."""
    if not bulk or count < BULK_THREADS_MIN:
        return 1
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def reserve_hnsw(hnsw: hnswlib.Index, size: int) -> None:
    """Room for ``size`` labels (grown by half at least, so adds stay amortised)."""
    if size > hnsw.get_max_elements():
        hnsw.resize_index(max(size, int(hnsw.get_max_elements() * _GROW)))


def hnsw_search(
    hnsw: hnswlib.Index, vector: np.ndarray, ef: int, k: int, mask: np.ndarray, live: int
) -> dict[int, float]:
    """Label -> cosine similarity of the ``k`` nearest labels ``mask`` admits, searched
    with beam width ``ef`` (``live``: how many labels are not deleted)."""
    allowed = int(np.count_nonzero(mask))
    k = min(k, allowed)
    if k <= 0:
        return {}
    hnsw.set_ef(max(ef, k))
    # Deleted labels never come back; a filter is needed only when live ones are excluded.
    every = allowed == live
    size = len(mask)
    labels, distances = hnsw.knn_query(
        vector.reshape(1, -1).astype(np.float32, copy=False),
        k=k,
        num_threads=1,
        filter=None if every else (lambda label: bool(label < size and mask[label])),
    )
    return {int(i): quantised(1.0 - float(d)) for i, d in zip(labels[0], distances[0], strict=True)}


SIMILARITY_DECIMALS = 6
"""Decimals a cosine similarity keeps. float32 dot products differ in their last bits
between CPUs (the SIMD width hnswlib and BLAS pick), which flipped the order of two
cues 6e-8 apart on one machine and not on another; rounded, such a pair ties and the
tie is broken by key, the same everywhere."""


def quantised(similarity: float) -> float:
    """A similarity rounded to :data:`SIMILARITY_DECIMALS` (see there why)."""
    return round(similarity, SIMILARITY_DECIMALS)


def top_positions(
    scores: np.ndarray, slots: np.ndarray, k: int, tie: SlotKeys | Callable[[int], Any]
) -> list[int]:
    """Positions of the ``k`` best scores, ties broken by the slots' keys (``tie``: the
    keys, or a function giving a slot's tie key), by partition."""
    if k <= 0 or not len(scores):
        return []
    if k < len(scores):
        cut = kth_largest(scores, k)
        above = np.flatnonzero(scores > cut)
        # Of the scores tied at the cut, only the first few by key make the k.
        tied = np.flatnonzero(scores == cut)
        need = k - len(above)
        if isinstance(tie, SlotKeys):
            first = tie.smallest(slots[tied], need)
        else:
            keys = [tie(slot) for slot in slots[tied].tolist()]
            first = np.asarray(
                heapq.nsmallest(need, range(len(keys)), key=keys.__getitem__), dtype=np.intp
            )
        pool = np.concatenate([above, tied[first]])
    else:
        pool = np.arange(len(scores))
    key = tie.__getitem__ if isinstance(tie, SlotKeys) else tie
    values = (-scores[pool]).tolist()  # plain floats and keys: a fast sort key
    names = [key(slot) for slot in slots[pool].tolist()]
    ordered = sorted(range(len(pool)), key=lambda j: (values[j], names[j]))
    return pool[ordered].tolist()


def population_ranks(hits: SparseHits, held: dict[int, float], keys: SlotKeys) -> dict[int, int]:
    """1-based ranks within the population ``hits`` of the slots in ``held`` (slot ->
    its score there), ties broken by the slots' keys. Most hits share a few scores (a
    common word's), so each score's ties are read from the population once for all
    the slots holding it."""
    at: dict[float, list[int]] = {}
    for slot, value in held.items():
        at.setdefault(value, []).append(slot)
    ranks: dict[int, int] = {}
    for value, slots in at.items():
        above = int(np.count_nonzero(hits.scores > value))
        tied = hits.slots[hits.scores == value]
        below = keys.count_below(tied, [keys[slot] for slot in slots])
        ranks.update((slot, 1 + above + n) for slot, n in zip(slots, below, strict=True))
    return ranks
