"""Okapi BM25 over short documents (cue texts, or contents for the flat baseline)."""

from __future__ import annotations

import math
from collections import Counter, defaultdict

from mragent.text import content_words


class BM25:
    """An inverted-index BM25 scorer.

    Args:
        docs: Document texts; scores refer to their positions.
        k1: Term-frequency saturation.
        b: Length normalisation.
    """

    def __init__(self, docs: list[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        self.lengths = []
        for i, doc in enumerate(docs):
            counts = Counter(content_words(doc))
            self.lengths.append(sum(counts.values()))
            for term, tf in counts.items():
                self.postings[term].append((i, tf))
        self.n = len(docs)
        self.avg_len = (sum(self.lengths) / self.n) if self.n else 0.0

    def idf(self, term: str) -> float:
        df = len(self.postings.get(term, ()))
        return math.log(1 + (self.n - df + 0.5) / (df + 0.5))

    def scores(self, query: str) -> dict[int, float]:
        """Document position -> score, for documents sharing a query term."""
        out: dict[int, float] = defaultdict(float)
        for term in set(content_words(query)):
            idf = self.idf(term)
            for doc, tf in self.postings.get(term, ()):
                norm = self.k1 * (1 - self.b + self.b * self.lengths[doc] / (self.avg_len or 1))
                out[doc] += idf * tf * (self.k1 + 1) / (tf + norm)
        return out

    def top(self, query: str, k: int) -> list[tuple[int, float]]:
        """The ``k`` best (position, score) pairs, ties broken by position."""
        scored = self.scores(query)
        return sorted(scored.items(), key=lambda item: (-item[1], item[0]))[:k]
