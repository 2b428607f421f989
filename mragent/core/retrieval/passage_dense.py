"""Stage 1b, dense half: contents entered by their passage embeddings beside BM25.

A question that paraphrases its first-hop passage shares few words with it, so
BM25 alone does not seed it; the passage's embedding (the embedder's passage
method over title and text, written with the content) still lies near the
question's query embedding.

:class:`DensePassages` is an HNSW index (hnswlib) of the passage vectors by
content slot, kept current by the namespace's change feed with the rest of the
passage index and searched with ``ef`` = ``efSearch``, keeping the
``min(efSearch, DENSE_CANDIDATES)`` nearest admitted passages, as cue search
keeps its dense cue hits.

:func:`fused_passages` fuses those hits with the contents' BM25 scores by the
genome's ``fusion`` weighted by ``hybridAlpha``, the genes that fuse cue
search's halves. The fusion decides the order only. Its values live on another
scale (RRF's are near ``1/61``, compressed so that the twentieth passage scores
three quarters of the first) and would make every passage look as relevant as
the best, crowd cue hits out of the entry slots and flatten the final blend. So
the fused order is explicitly put back on BM25's scale: the passage at fused
rank ``i`` gets the BM25 score of the question's ``i``-th best passage. The
population of scores the seeds, their floor, the entry competition with cues
and the blend see is the one BM25 alone gives; what changes is which passage
holds which score. Sparse-only fusion (``hybridAlpha`` 0) is BM25 exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from mragent.core.errors import MragentError
from mragent.core.genome import Genome
from mragent.core.retrieval.cue_search import (
    DENSE_CANDIDATES,
    hnsw_search,
    insert_threads,
    new_hnsw,
    reserve_hnsw,
    sparse_side,
)
from mragent.core.retrieval.fusion import Side, fuse
from mragent.core.retrieval.slot_keys import SlotKeys
from mragent.core.retrieval.sparse_index import SparseHits

_GROW = 1.5
FUSED_BM25 = 2 * DENSE_CANDIDATES  # BM25's best passages fused with the dense hits
# Passage vectors read back are kept, up to this many bytes: hnswlib's get_items costs
# about 20 us a row (a multi-round question reads a hundred or so), a kept row one
# dictionary lookup. The HNSW index stays the one full copy.
VECTOR_CACHE_BYTES = 64 * 2**20


class DensePassages:
    """Passage vectors by content slot in an HNSW index (a content written without one
    enters by BM25 only).

    Args:
        dimension: The embedder's dimension.
    """

    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self.present = np.zeros(0, dtype=bool)
        self.hnsw = new_hnsw(max(1, dimension))
        self._kept: dict[int, np.ndarray] = {}  # slot -> its vector as stored, oldest first
        self._kept_max = max(1, VECTOR_CACHE_BYTES // (4 * max(1, dimension)))

    def __len__(self) -> int:
        return int(np.count_nonzero(self.present))

    def add(self, rows: Sequence[tuple[int, Sequence[float], str]], *, bulk: bool = False) -> None:
        """Give slots their vectors, in the given order (it fixes the HNSW build).

        Args:
            rows: ``(slot, vector, content id)``; a slot already present gets the new vector.
            bulk: A full build (see :data:`~mragent.core.retrieval.cue_search.BULK_THREADS_MIN`
                for what it may thread).
        """
        if not rows:
            return
        matrix = np.asarray([vector for _, vector, _ in rows], dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[1] != self.dimension:
            bad = next(cid for _, v, cid in rows if len(v) != self.dimension)
            raise MragentError(
                f"content {bad} has a passage vector of {len(rows[0][1])} dimensions; "
                f"the namespace's embedder stamps {self.dimension}"
            )
        labels = np.asarray([slot for slot, _, _ in rows])
        self._forget_kept(labels.tolist())
        self._reserve(int(labels.max()) + 1)
        # hnswlib updates a known label in place (and unmarks it if it was deleted).
        self.hnsw.add_items(matrix, labels, num_threads=insert_threads(len(labels), bulk))
        self.present[labels] = True

    def vectors(self, slots: np.ndarray) -> np.ndarray:
        """The passage vectors of ``slots`` as rows (zeros for a slot without one)."""
        slots = np.asarray(slots, dtype=np.int64)
        out = np.zeros((len(slots), max(1, self.dimension)), dtype=np.float32)
        size = len(self.present)
        if not size or not len(slots):
            return out
        held = np.flatnonzero((slots < size) & self.present[np.minimum(slots, size - 1)])
        if not len(held):
            return out
        wanted = slots[held].tolist()
        kept = {slot: self._kept[slot] for slot in wanted if slot in self._kept}
        missing = list(dict.fromkeys(slot for slot in wanted if slot not in kept))
        if missing:
            read = np.asarray(self.hnsw.get_items(missing, return_type="numpy"), np.float32)
            fresh = {slot: row.copy() for slot, row in zip(missing, read, strict=True)}
            kept.update(fresh)
            self._kept.update(fresh)
            while len(self._kept) > self._kept_max:
                del self._kept[next(iter(self._kept))]
        out[held] = np.stack([kept[slot] for slot in wanted])
        return out

    def clear(self, slot: int) -> None:
        """Remove the vector of ``slot`` (a forgotten or purged content)."""
        self._forget_kept([slot])
        if slot < len(self.present) and self.present[slot]:
            self.present[slot] = False
            self.hnsw.mark_deleted(slot)

    def _forget_kept(self, slots: list[int]) -> None:
        for slot in slots:
            self._kept.pop(slot, None)

    def _reserve(self, size: int) -> None:
        reserve_hnsw(self.hnsw, size)
        if size > len(self.present):
            grow = max(size, int(len(self.present) * _GROW) + 16) - len(self.present)
            self.present = np.concatenate([self.present, np.zeros(grow, dtype=bool)])

    def search(self, vector: np.ndarray, ef: int, mask: np.ndarray) -> dict[int, float]:
        """Slot -> cosine similarity of the ``min(ef, DENSE_CANDIDATES)`` nearest
        admitted passages (HNSW with beam width ``ef``)."""
        size = min(len(self.present), len(mask))
        admitted = self.present[:size] & mask[:size]
        return hnsw_search(self.hnsw, vector, ef, min(DENSE_CANDIDATES, ef), admitted, len(self))


def fused_passages(
    sparse: SparseHits,
    near: dict[int, float],
    genome: Genome,
    keys: SlotKeys,
) -> tuple[SparseHits, Callable[[int], tuple[int, str]] | None]:
    """The question's passage scores: BM25 fused with the dense passage hits, on BM25's scale.

    The :data:`FUSED_BM25` best BM25 passages and the dense hits are fused (BM25's
    ranks and statistics those of all its scores); the fused passages, in fused
    order, take BM25's best scores, one each (those past BM25's population take
    none), and every passage left out of the fusion keeps its own BM25 score (none
    when BM25's weight is zero). The values are BM25's, whoever holds them.

    Args:
        sparse: BM25 scores of the admitted contents sharing a question term.
        near: The dense passage hits (slot -> cosine), from :meth:`DensePassages.search`.
        genome: Supplies fusion and hybridAlpha.
        keys: Content keys by slot (the stable tie key).

    Returns:
        Scores (positive only), slots ascending, as BM25's hits are (dense cosines set
        the scale when no content shares a term with the question); and the tie key by
        slot, which orders passages given equal scores by their fused rank (None: BM25
        alone, ties broken by content key).
    """
    if genome.hybridAlpha == 0.0 or not near:
        return sparse, None

    def tie(slot: str) -> str:
        return keys[int(slot)]

    fused = fuse(
        genome.fusion,
        Side.of({str(slot): value for slot, value in near.items()}, tie),
        sparse_side(sparse, FUSED_BM25, near, keys, str),
        genome.hybridAlpha,
    )
    # A passage only the zero-weighted side found is no evidence.
    order = sorted(
        (int(s) for s, v in fused.items() if v > 0), key=lambda s: (-fused[str(s)], keys[s])
    )
    population = sparse.scores if len(sparse) else np.fromiter(near.values(), np.float64)
    # BM25's best scores, one per fused passage (those beyond the population take none),
    # by partition: the question's other BM25 hits need no order.
    k = min(len(order), len(population))
    top = (
        np.partition(population, len(population) - k)[len(population) - k :]
        if k
        else population[:0]
    )
    scale = np.sort(top)[::-1]
    slots = [np.asarray(order[:k], dtype=np.int64)]
    values = [scale]
    if genome.hybridAlpha < 1.0:  # every passage left out of the fusion keeps its BM25 score
        candidates = np.fromiter((int(slot) for slot in fused), np.int64, len(fused))
        left = ~np.isin(sparse.slots, candidates)
        slots.append(sparse.slots[left].astype(np.int64))
        values.append(sparse.scores[left])
    all_slots, all_values = np.concatenate(slots), np.concatenate(values)
    positive = all_values > 0
    all_slots, all_values = all_slots[positive], all_values[positive]
    by_slot = np.argsort(all_slots, kind="stable")
    hits = SparseHits(all_slots[by_slot].astype(np.int32), all_values[by_slot].astype(np.float64))
    ranks = {slot: rank for rank, slot in enumerate(order)}
    return hits, lambda slot: (ranks.get(slot, len(ranks)), keys[slot])
