"""Stage 1b, dense half: contents entered by their passage embeddings beside BM25.

A question that paraphrases its first-hop passage shares few words with it, so
BM25 alone does not seed it; the passage's embedding (written with its text by
the embedder's passage method) still lies near the question's query embedding.
:class:`DensePassages` scores the contents of the read view by cosine
similarity (exact: one matrix product over the snapshot, the
``min(efSearch, DENSE_CANDIDATES)`` best kept, as cue search keeps its dense
hits) and :func:`fused_passages` fuses them with the contents' BM25 scores by
the genome's ``fusion`` weighted by ``hybridAlpha``, the same two genes that
fuse cue search's halves. The fused scores choose the passage seeds and are the
passages' relevance in the final blend.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mragent.core.genome import Genome
from mragent.core.retrieval.cue_search import DENSE_CANDIDATES
from mragent.core.retrieval.fusion import fuse


class DensePassages:
    """The passage embeddings of a content snapshot, for exact cosine search.

    Args:
        contents: Snapshot rows; ``embedding`` is the passage vector (None for
            a content written before contents carried one: it enters by BM25 only).
        dimension: The namespace embedder's dimension.
    """

    def __init__(self, contents: Sequence[dict[str, Any]], dimension: int) -> None:
        have = [i for i, row in enumerate(contents) if row.get("embedding")]
        self.positions = np.array(have, dtype=np.int64)
        self.matrix = np.array([contents[i]["embedding"] for i in have], dtype=np.float32).reshape(
            -1, dimension
        )
        self.complete = len(have) == len(contents)

    def scores(self, vector: np.ndarray, k: int) -> dict[int, float]:
        """Snapshot position -> cosine similarity, for the ``k`` nearest passages."""
        k = min(k, len(self.positions))
        if k <= 0:
            return {}
        sims = self.matrix @ vector.reshape(-1).astype(np.float32)
        best = np.argpartition(-sims, k - 1)[:k]
        return {int(self.positions[i]): float(sims[i]) for i in best}


def fused_passages(
    sparse: dict[int, float],
    dense: DensePassages,
    vector: np.ndarray | None,
    genome: Genome,
) -> dict[int, float]:
    """Snapshot position -> fused passage score (only positive ones).

    Args:
        sparse: BM25 scores of the contents sharing a question term.
        dense: The snapshot's passage vectors.
        vector: The question's query embedding (None: BM25 only).
        genome: Supplies fusion, hybridAlpha and efSearch.
    """
    if vector is None or genome.hybridAlpha == 0.0:
        return {i: value for i, value in sparse.items() if value > 0}
    near = dense.scores(vector, min(genome.efSearch, DENSE_CANDIDATES))
    fused = fuse(
        genome.fusion,
        {str(i): value for i, value in near.items()},
        {str(i): value for i, value in sparse.items()},
        genome.hybridAlpha,
    )
    # A passage only the zero-weighted side found is no evidence.
    return {int(key): value for key, value in fused.items() if value > 0}
