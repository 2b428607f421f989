"""Stage 1b, dense half: contents entered by their passage embeddings beside BM25.

A question that paraphrases its first-hop passage shares few words with it, so
BM25 alone does not seed it; the passage's embedding (written with its text by
the embedder's passage method) still lies near the question's query embedding.
:class:`DensePassages` holds the passage vectors of a
:class:`~mragent.core.retrieval.passages.PassageIndex` by slot, kept current by the
namespace's change feed like the rest of the index, and scores the admitted
contents by cosine similarity (exact: one matrix product, the
``min(efSearch, DENSE_CANDIDATES)`` best kept, as cue search keeps its dense
hits). :func:`fused_passages` fuses them with the contents' BM25 scores by the
genome's ``fusion`` weighted by ``hybridAlpha``, the same two genes that fuse cue
search's halves. The fused scores choose the passage seeds and are the
passages' relevance in the final blend.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mragent.core.errors import MragentError
from mragent.core.genome import Genome
from mragent.core.retrieval.cue_search import DENSE_CANDIDATES
from mragent.core.retrieval.fusion import Side, fuse
from mragent.core.retrieval.sparse_index import SparseHits

_GROW = 1.5


class DensePassages:
    """Passage vectors by content slot (a content written without one enters by BM25 only).

    The dimension is fixed by the first vector applied.
    """

    def __init__(self) -> None:
        self.matrix = np.zeros((0, 0), dtype=np.float32)
        self.present = np.zeros(0, dtype=bool)

    def set(self, slot: int, vector: Sequence[float] | np.ndarray, content_id: str) -> None:
        """Store ``vector`` as the passage vector of ``slot``."""
        row = np.asarray(vector, dtype=np.float32).reshape(-1)
        if self.matrix.shape[1] == 0:
            self.matrix = np.zeros((len(self.present), len(row)), dtype=np.float32)
        if len(row) != self.matrix.shape[1]:
            raise MragentError(
                f"content {content_id} has a passage vector of {len(row)} dimensions; "
                f"the namespace's others have {self.matrix.shape[1]}"
            )
        self._reserve(slot + 1)
        self.matrix[slot] = row
        self.present[slot] = True

    def clear(self, slot: int) -> None:
        """Forget the vector of ``slot`` (a forgotten or purged content)."""
        if slot < len(self.present):
            self.present[slot] = False

    def _reserve(self, size: int) -> None:
        if size <= len(self.present):
            return
        grow = max(size, int(len(self.present) * _GROW) + 16) - len(self.present)
        self.present = np.concatenate([self.present, np.zeros(grow, dtype=bool)])
        width = self.matrix.shape[1]
        self.matrix = np.concatenate([self.matrix, np.zeros((grow, width), dtype=np.float32)])

    def scores(self, vector: np.ndarray, k: int, mask: np.ndarray) -> dict[int, float]:
        """Slot -> cosine similarity, for the ``k`` nearest admitted passages."""
        size = min(len(self.present), len(mask))
        slots = np.flatnonzero(self.present[:size] & mask[:size])
        k = min(k, len(slots))
        if k <= 0:
            return {}
        sims = self.matrix[slots] @ vector.reshape(-1).astype(np.float32)
        best = np.argpartition(-sims, k - 1)[:k]
        return {int(slots[i]): float(sims[i]) for i in best}

    def to_arrays(self, size: int) -> dict[str, np.ndarray]:
        """The first ``size`` slots as arrays, for a persisted copy."""
        self._reserve(size)
        return {"matrix": self.matrix[:size], "present": self.present[:size]}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> DensePassages:
        """The inverse of :meth:`to_arrays`."""
        dense = cls()
        dense.matrix = np.array(arrays["matrix"], dtype=np.float32)
        dense.present = np.array(arrays["present"], dtype=bool)
        return dense


def fused_passages(
    sparse: SparseHits,
    dense: DensePassages,
    vector: np.ndarray,
    mask: np.ndarray,
    genome: Genome,
    keys: Sequence[str],
) -> SparseHits:
    """The question's passage scores, BM25 fused with the dense passage hits.

    Args:
        sparse: BM25 scores of the admitted contents sharing a question term.
        dense: The passage vectors.
        vector: The question's query embedding.
        mask: The content slots the view admits.
        genome: Supplies fusion, hybridAlpha and efSearch.
        keys: Content keys by slot (the stable tie key of the fusion ranks).

    Returns:
        Fused scores (only positive ones), slots ascending, as BM25's hits are.
    """
    if genome.hybridAlpha == 0.0:
        return sparse
    near = dense.scores(vector, min(genome.efSearch, DENSE_CANDIDATES), mask)
    if not near:
        return sparse
    words = {str(int(s)): float(v) for s, v in zip(sparse.slots, sparse.scores, strict=True)}

    def tie(slot: str) -> str:
        return keys[int(slot)]

    fused = fuse(
        genome.fusion,
        Side.of({str(s): v for s, v in near.items()}, tie),
        Side.of(words, tie),
        genome.hybridAlpha,
    )
    # A passage only the zero-weighted side found is no evidence.
    kept = sorted((int(slot), value) for slot, value in fused.items() if value > 0)
    return SparseHits(
        np.array([slot for slot, _ in kept], dtype=np.int32),
        np.array([value for _, value in kept], dtype=np.float64),
    )
