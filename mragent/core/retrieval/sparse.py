"""Okapi BM25 over short documents (cue texts, or contents for the flat baseline)."""

from __future__ import annotations

import math
from collections import Counter, defaultdict

from mragent.core.text import content_words, plain_words

OKAPI_EPSILON = 0.25  # rank_bm25's floor for non-positive IDF, as a share of the mean


class BM25:
    """An inverted-index BM25 scorer.

    Args:
        docs: Document texts; scores refer to their positions.
        k1: Term-frequency saturation.
        b: Length normalisation.
        stopwords: Drop stop words (the default, for cue search). ``False`` gives
            plain Okapi BM25 as usually benchmarked (rank_bm25's ``BM25Okapi``):
            every lowercase ``[a-z0-9]+`` token, and IDF ``log((N - df + 0.5) /
            (df + 0.5))`` with non-positive values floored at
            ``OKAPI_EPSILON`` times the mean IDF.
    """

    def __init__(
        self, docs: list[str], k1: float = 1.5, b: float = 0.75, *, stopwords: bool = True
    ) -> None:
        self.k1, self.b = k1, b
        self.tokens = content_words if stopwords else plain_words
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        self.lengths = []
        for i, doc in enumerate(docs):
            counts = Counter(self.tokens(doc))
            self.lengths.append(sum(counts.values()))
            for term, tf in counts.items():
                self.postings[term].append((i, tf))
        self.n = len(docs)
        self.avg_len = (sum(self.lengths) / self.n) if self.n else 0.0
        self.okapi: dict[str, float] | None = None
        if not stopwords:
            raw = {
                t: math.log((self.n - len(p) + 0.5) / (len(p) + 0.5))
                for t, p in self.postings.items()
            }
            floor = OKAPI_EPSILON * (sum(raw.values()) / len(raw)) if raw else 0.0
            self.okapi = {t: value if value > 0 else floor for t, value in raw.items()}

    def idf(self, term: str) -> float:
        if self.okapi is not None:
            return self.okapi.get(term, 0.0)
        df = len(self.postings.get(term, ()))
        return math.log(1 + (self.n - df + 0.5) / (df + 0.5))

    def scores(self, query: str) -> dict[int, float]:
        """Document position -> score, for documents sharing a query term."""
        out: dict[int, float] = defaultdict(float)
        terms = self.tokens(query)
        # Plain Okapi scores every query token, repeats included (as rank_bm25 does);
        # otherwise each distinct term once, in query order (a set's order is per
        # process, and the order of the float sums decides near-ties).
        for term in terms if self.okapi is not None else dict.fromkeys(terms):
            idf = self.idf(term)
            for doc, tf in self.postings.get(term, ()):
                norm = self.k1 * (1 - self.b + self.b * self.lengths[doc] / (self.avg_len or 1))
                out[doc] += idf * tf * (self.k1 + 1) / (tf + norm)
        return out

    def top(self, query: str, k: int) -> list[tuple[int, float]]:
        """The ``k`` best (position, score) pairs, ties broken by position."""
        scored = self.scores(query)
        return sorted(scored.items(), key=lambda item: (-item[1], item[0]))[:k]
