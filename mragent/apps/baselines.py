"""Flat baselines: single-lookup retrieval over contents (BM25 and dense).

They answer the question "what would plain RAG over the same passages do?" and
run in the same process on the same data as the reconstruction they sit beside.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from mragent.apps.evaluate import RECALL_KS, QuestionResult
from mragent.apps.judge import is_correct, recall_at_k
from mragent.core.corpus import Question
from mragent.core.embedding import Embedder
from mragent.core.retrieval.sparse import BM25
from mragent.core.text import count_tokens


class FlatRetriever:
    """Top-k contents by BM25 or by dense cosine similarity.

    Args:
        contents: Rows with ``key``, ``title``, ``text`` (a namespace snapshot).
        method: ``bm25`` or ``dense``.
        embedder: Used by ``dense``.
    """

    def __init__(self, contents: list[dict[str, str]], method: str, embedder: Embedder) -> None:
        self.contents, self.method, self.embedder = contents, method, embedder
        docs = [f"{row['title'] or ''} {row['text']}" for row in contents]
        if method == "bm25":
            # Plain Okapi BM25, as the published baselines compute it (stop words kept).
            self.bm25 = BM25(docs, stopwords=False)
        elif method == "dense":
            dim = embedder.identity.dimension
            self.matrix = embedder.embed(docs) if docs else np.zeros((0, dim), np.float32)
        else:
            raise ValueError(f"unknown flat method {method!r}")

    def search(self, question: str, k: int) -> list[int]:
        """Positions of the ``k`` best contents."""
        if self.method == "bm25":
            return [i for i, _ in self.bm25.top(question, k)]
        sims = self.matrix @ self.embedder.embed([question])[0]
        return [int(i) for i in np.argsort(-sims, kind="stable")[:k]]

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
