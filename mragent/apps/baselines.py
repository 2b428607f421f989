"""Flat baselines: single-lookup retrieval over contents (BM25, dense, and both fused).

BM25 runs twice, side by side: plain Okapi as the published baselines and the
datasets' README compute it (rank_bm25's ``BM25Okapi``: non-positive IDF floored
at a share of the mean, which bm25s does not offer, so it is kept in
:class:`~mragent.core.retrieval.sparse.BM25`), and Lucene's IDF through bm25s,
the stronger flat sparse retriever; the hybrid fuses the Lucene one.

They answer the question "what would plain RAG over the same passages do?" and
run in the same process on the same data as the reconstruction they sit beside.
The dense and hybrid ones use the namespace's own embedder, so reconstruction is
always compared with the best flat RAG built on the same model.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from mragent.apps.evaluate import RECALL_KS, QuestionResult
from mragent.apps.judge import is_correct, recall_at_k
from mragent.core.corpus import Question
from mragent.core.embedding import Embedder, embed_all, embedder_name, passage_text
from mragent.core.retrieval.fusion import Side, rrf
from mragent.core.retrieval.sparse import BM25
from mragent.core.text import count_tokens, plain_words

FLAT_METHODS = ("bm25", "bm25-lucene", "dense", "hybrid")
HYBRID_DEPTH = 100  # candidates each side hands to the fusion (rank 100 adds 1/160)


def flat_label(method: str, embedder: Embedder) -> str:
    """The row name of a flat baseline: the dense ones name their embedder."""
    model = embedder_name(embedder)
    if method == "dense":
        return f"flat dense ({model})"
    if method == "hybrid":
        return f"flat hybrid ({model})"
    if method == "bm25-lucene":
        return "flat bm25 (lucene, bm25s)"
    return "flat bm25 (okapi)"


def stored_vectors(contents: Sequence[dict], dimension: int) -> np.ndarray | None:
    """The snapshot's passage vectors as one matrix, or None when a content has none
    (one written before contents carried passage vectors)."""
    if not all(row.get("embedding") for row in contents):
        return None
    rows = [row["embedding"] for row in contents]
    return np.array(rows, dtype=np.float32).reshape(len(contents), dimension)


class LuceneBM25:
    """BM25 with Lucene's IDF through bm25s, over the plain Okapi baseline's tokens.

    Args:
        docs: Document texts; results refer to their positions.
    """

    def __init__(self, docs: list[str]) -> None:
        # Imported here: bm25s takes about 0.4 s to import, and only bench needs it.
        import bm25s

        self.index = bm25s.BM25(method="lucene")
        self.index.index([plain_words(doc) for doc in docs], show_progress=False)
        self.n = len(docs)

    def top(self, query: str, k: int) -> list[tuple[int, float]]:
        """The ``k`` best (position, score) pairs with a positive score, ties by position."""
        terms = plain_words(query)
        k = min(k, self.n)
        if not terms or k <= 0:
            return []
        scores = self.index.get_scores(terms)
        best = np.argpartition(-scores, k - 1)[:k]
        ranked = sorted((int(i) for i in best), key=lambda i: (-scores[i], i))
        return [(i, float(scores[i])) for i in ranked if scores[i] > 0]


class FlatRetriever:
    """Top-k contents by BM25, by dense cosine similarity, or by both fused (RRF).

    Args:
        contents: Rows with ``key``, ``title``, ``text`` (a namespace snapshot).
        method: ``bm25`` (plain Okapi), ``bm25-lucene`` (bm25s), ``dense`` or
            ``hybrid`` (Lucene BM25 and dense, reciprocal rank fusion with equal
            weights, k = 60, over each side's top 100).
        embedder: Used by ``dense`` and ``hybrid`` (passages and questions are
            embedded by its passage and query methods).
        vectors: The contents' passage vectors from ``embedder``, when already
            computed (default: embedded here).
    """

    def __init__(
        self,
        contents: list[dict[str, str]],
        method: str,
        embedder: Embedder,
        vectors: np.ndarray | None = None,
    ) -> None:
        if method not in FLAT_METHODS:
            raise ValueError(f"unknown flat method {method!r}")
        self.contents, self.method, self.embedder = contents, method, embedder
        docs = [passage_text(row["title"], row["text"]) for row in contents]
        self.bm25: BM25 | LuceneBM25
        if method == "bm25":
            # Plain Okapi BM25, as the published baselines compute it (stop words kept).
            self.bm25 = BM25(docs, stopwords=False)
        elif method in ("bm25-lucene", "hybrid"):
            self.bm25 = LuceneBM25(docs)
        if method in ("dense", "hybrid"):
            dimension = embedder.identity.dimension
            if vectors is None:
                vectors = embed_all(embedder.embed_passages, docs, dimension)
            if vectors.shape != (len(docs), dimension):
                raise ValueError(f"vectors of shape {vectors.shape} for {len(docs)} contents")
            self.matrix = vectors

    def _dense(self, question: str, k: int) -> list[int]:
        sims = self.matrix @ self.embedder.embed_queries([question])[0]
        return [int(i) for i in np.argsort(-sims, kind="stable")[:k]]

    def search(self, question: str, k: int) -> list[int]:
        """Positions of the ``k`` best contents."""
        if self.method in ("bm25", "bm25-lucene"):
            return [i for i, _ in self.bm25.top(question, k)]
        if self.method == "dense":
            return self._dense(question, k)
        depth = max(k, HYBRID_DEPTH)
        sparse = {str(i): score for i, score in self.bm25.top(question, depth)}
        dense = {str(i): float(depth - r) for r, i in enumerate(self._dense(question, depth))}
        # Ties rank by position, as the lists were ordered.
        fused = rrf(Side.of(dense, _position), Side.of(sparse, _position), 0.5)
        ranked = sorted(fused.items(), key=lambda item: (-item[1], int(item[0])))
        return [int(key) for key, _ in ranked[:k]]

    def run(self, questions: Sequence[Question], k: int) -> list[QuestionResult]:
        """Evaluate with the top ``k`` contents as the context."""
        out = []
        for q in questions:
            start = time.perf_counter()
            hits = self.search(q.question, max(k, *RECALL_KS))
            elapsed = (time.perf_counter() - start) * 1000
            keys = [self.contents[i]["key"] for i in hits]
            context = "\n".join(self.contents[i]["text"] for i in hits[:k])
            out.append(
                QuestionResult(
                    id=q.id,
                    kind=q.kind,
                    # A flat lookup never abstains: it always returns its top k.
                    correct=is_correct(q.answerable, q.answers, context, abstained=False),
                    # No answer step: nothing to score, not a score of zero.
                    em=None,
                    f1=None,
                    answer=None,
                    recall={r: recall_at_k(keys, q.supporting, r) for r in RECALL_KS}
                    if q.supporting
                    else {},
                    tokens=count_tokens(context),
                    hops=0,
                    work=len(hits),
                    timings_ms={"search": elapsed},
                )
            )
        return out


def _position(key: str) -> str:
    """A position's tie key that sorts as the number does."""
    return key.zfill(12)
