"""Stage 1: hybrid cue search.

Dense: an HNSW index (hnswlib) over cue embeddings, searched with ``ef`` =
``efSearch``. Sparse: BM25 over cue texts. The two are fused (``fusion``,
weighted by ``hybridAlpha``) and the best ``cueK`` cues become entry points,
their fused scores scaled to (0, 1] so the traversal's evidence is comparable
across questions.

The in-process index is a snapshot of the namespace's cues, built once per
memory and reused for every question: the memory is frozen while it is read.
The database's own vector index can stand in for the dense half
(:meth:`CueIndex.native_dense`).
"""

from __future__ import annotations

from dataclasses import dataclass

import hnswlib
import numpy as np

from mragent.core.embedding import Embedder
from mragent.core.genome import Genome
from mragent.core.retrieval.fusion import fuse
from mragent.core.retrieval.sparse import BM25
from mragent.core.store.base import GraphStore
from mragent.core.view import ReadView

HNSW_M = 16
HNSW_EF_CONSTRUCTION = 200
DENSE_CANDIDATES = 32  # dense hits fused per question, capped by efSearch
NATIVE_FETCH_MAX = 16_384  # the most hits asked of the shared native vector index


@dataclass(frozen=True)
class CueHit:
    """One entry cue with the scores that chose it."""

    id: str
    text: str
    dense: float
    sparse: float
    fused: float
    score: float  # fused scaled to (0, 1]: the evidence the traversal starts from


class CueIndex:
    """Dense and sparse indexes over one namespace's cues.

    Args:
        ids: Cue ids.
        texts: Cue texts, aligned with ``ids``.
        vectors: Cue embeddings, shape ``(n, dim)``.
        embedder: Embeds questions into the cues' space.
    """

    def __init__(
        self, ids: list[str], texts: list[str], vectors: np.ndarray, embedder: Embedder
    ) -> None:
        self.ids, self.texts, self.embedder = ids, texts, embedder
        self.position = {cue_id: i for i, cue_id in enumerate(ids)}
        dim = vectors.shape[1] if len(ids) else embedder.identity.dimension
        self.hnsw = hnswlib.Index(space="cosine", dim=dim)
        self.hnsw.init_index(
            max_elements=max(1, len(ids)),
            M=HNSW_M,
            ef_construction=HNSW_EF_CONSTRUCTION,
            random_seed=100,
        )
        if len(ids):
            self.hnsw.add_items(vectors, np.arange(len(ids)), num_threads=1)
        self.bm25 = BM25(texts)

    @classmethod
    def from_store(cls, store: GraphStore, ns: str, embedder: Embedder, view: ReadView) -> CueIndex:
        """Snapshot the cues of a namespace that lead to a content ``view`` sees."""
        rows = store.run("cue_snapshot", {"ns": ns, **view.params()})
        dim = embedder.identity.dimension
        vectors = np.array([row["embedding"] for row in rows], dtype=np.float32).reshape(-1, dim)
        return cls([row["id"] for row in rows], [row["text"] for row in rows], vectors, embedder)

    def __len__(self) -> int:
        return len(self.ids)

    def dense(self, vector: np.ndarray, ef: int, k: int = DENSE_CANDIDATES) -> dict[str, float]:
        """HNSW search with beam width ``ef``: cue id -> cosine similarity."""
        if not self.ids:
            return {}
        k = min(k, ef, len(self.ids))
        self.hnsw.set_ef(max(ef, k))
        labels, distances = self.hnsw.knn_query(vector.reshape(1, -1), k=k, num_threads=1)
        return {
            self.ids[int(i)]: 1.0 - float(d) for i, d in zip(labels[0], distances[0], strict=True)
        }

    def exact_dense(self, vector: np.ndarray, k: int) -> dict[str, float]:
        """Brute-force cosine top-k, the ground truth HNSW approximates."""
        if not self.ids:
            return {}
        items = self.hnsw.get_items(np.arange(len(self.ids)), return_type="numpy")
        sims = items @ vector.reshape(-1)
        order = np.argsort(-sims, kind="stable")[:k]
        return {self.ids[int(i)]: float(sims[i]) for i in order}

    def native_dense(
        self,
        store: GraphStore,
        ns: str,
        scopes: tuple[str, ...],
        vector: np.ndarray,
        k: int = DENSE_CANDIDATES,
    ) -> dict[str, float]:
        """Dense candidates from the database's own vector index, within ``scopes``.

        The index spans every namespace and scope of the database, and the view's
        predicate applies after its top-k: the fetch grows (4x per try, up to
        :data:`NATIVE_FETCH_MAX`) until ``k`` of this view's cues are among the hits.
        """
        caps = store.capabilities
        wanted = min(k, len(self.ids))
        fetch = max(k * 8, 64)
        while True:
            rows = store.run(
                "cue_vector_search",
                {"ns": ns, "scopes": list(scopes), "k": fetch, "embedding": vector.tolist()},
            )
            # The snapshot holds the cues of the read view; the index holds every cue.
            visible = [row for row in rows if row["id"] in self.position]
            if len(visible) >= wanted or fetch >= NATIVE_FETCH_MAX:
                return {row["id"]: caps.similarity(row["raw_score"]) for row in visible[:k]}
            fetch *= 4

    def sparse(self, question: str) -> dict[str, float]:
        """BM25 over cue texts: cue id -> score (only cues sharing a term)."""
        return {self.ids[i]: score for i, score in self.bm25.scores(question).items()}

    def search(
        self, question: str, genome: Genome, dense_hits: dict[str, float] | None = None
    ) -> list[CueHit]:
        """The ``cueK`` best entry cues for ``question`` under ``genome``.

        Args:
            question: The question text.
            genome: Supplies cueK, efSearch, hybridAlpha, fusion.
            dense_hits: Precomputed dense candidates (e.g. from the native
                index); by default the HNSW index is searched with efSearch.
        """
        if dense_hits is None:
            vector = self.embedder.embed_queries([question])[0]
            dense_hits = self.dense(vector, genome.efSearch)
        sparse_hits = self.sparse(question)
        fused = {
            cue_id: value
            for cue_id, value in fuse(
                genome.fusion, dense_hits, sparse_hits, genome.hybridAlpha
            ).items()
            if value > 0
        }  # a cue only the zero-weighted side found is no evidence
        ranked = sorted(
            fused.items(), key=lambda item: (-item[1], self.texts[self.position[item[0]]])
        )[: genome.cueK]
        top = ranked[0][1] if ranked and ranked[0][1] > 0 else 1.0
        return [
            CueHit(
                cue_id,
                self.texts[self.position[cue_id]],
                dense_hits.get(cue_id, 0.0),
                sparse_hits.get(cue_id, 0.0),
                value,
                max(value / top, 1e-6),
            )
            for cue_id, value in ranked
        ]
