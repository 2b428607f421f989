"""Later rounds of reconstruction: a round's best contents cue the next.

A multi-hop question names its first passage; the second is named only by the
first (the bridge entity: "the company that made X" is named in X's passage).
So after a round, the best contents hand their specific tags (those referencing
at most :data:`~mragent.core.retrieval.reconstruct.HAND_REFS` contents, and
not already named by the question) to the next round, which enters the graph at
those tags' cues and runs the same traversal from them. A content ``p`` reached
from a tag content ``s`` handed on is a chain ``s -> p``, scored by both links:

    chain(p | s) = (value(s) + roundDecay * near(p | s)) / (1 + roundDecay)

where ``value(s)`` is what ``s`` scored (its own relevance, or its chain value if
an earlier round reached it) and ``near(p | s)`` is how close ``p`` lies to the
question moved toward ``s``: the cosine of ``p``'s passage vector with
``q + SHIFT * s`` (normalised), as a z-score over the namespace's passages. The
second passage of a chain answers the part of the question the first one
resolves, so it lies near neither the question alone nor ``s`` alone, but near
their sum. A content's value is the best of its own relevance and every chain
reaching it, so a later round can only raise a value; a round that raises none
ends the loop.

A content's own relevance is ``hybridAlpha * z(cosine) + (1 - hybridAlpha) *
z(BM25)``: each side as a z-score over the namespace's admitted passages (BM25's
over every admitted content, zeros included; the cosine's over a fixed sample of
passage vectors, :class:`Population`), so the two sides and the chains share
one scale whatever the embedder's cosines look like.

Everything here is arithmetic on vectors and scores the reader already holds;
which contents a round reaches, and their texts, come from the database's round
trip (``traverse.cypher``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

SHIFT = 0.3  # the handing passage's share of the moved question (MuSiQue train split)
SAMPLE = 8192  # passage vectors the cosine z-score's mean and covariance come from


@dataclass(frozen=True)
class Population:
    """The mean and covariance of a fixed sample of admitted passage vectors: the
    cosine z-score of any query over the sample, in O(d^2) instead of a pass over it
    (the mean of ``X v`` is ``mean(X) v``, its variance ``v' cov(X) v``)."""

    mean: np.ndarray
    covariance: np.ndarray

    @classmethod
    def of(cls, vectors: Callable[[np.ndarray], np.ndarray], slots: np.ndarray) -> Population:
        """At most :data:`SAMPLE` of ``slots``, evenly spaced in the order given."""
        if len(slots) > SAMPLE:
            slots = slots[np.linspace(0, len(slots) - 1, SAMPLE).astype(np.int64)]
        if not len(slots):
            return cls(np.zeros(1), np.zeros((1, 1)))
        sample = _unit(vectors(slots)).astype(np.float64)
        mean = sample.mean(axis=0)
        centred = sample - mean
        return cls(mean, centred.T @ centred / len(sample))

    def stats(self, query: np.ndarray) -> tuple[float, float]:
        """Mean and standard deviation of the sample's cosines with ``query``."""
        if len(query) != len(self.mean):
            return 0.0, 1.0
        v = query.astype(np.float64)
        spread = float(np.sqrt(max(float(v @ self.covariance @ v), 0.0)))
        return float(self.mean @ v), spread or 1.0


class ChainScores:
    """One question's values: own relevance, raised by the chains later rounds find.

    Args:
        query: The question's query embedding.
        vectors: Passage vectors by content id (a callable over a list of ids).
        bm25: Content id -> the question's BM25 score (0 for a content sharing no term).
        bm25_stats: Mean and standard deviation of BM25 over the admitted contents.
        population: The cosine z-score's sample.
        dense_share: hybridAlpha, the cosine's share of a content's own relevance.
        chain_share: roundDecay, a chain's weight on the reached content's nearness.
        key: Content id -> its key, which orders equal values (never the storage
            order or the random ids: every engine gives the same order).
    """

    def __init__(
        self,
        query: np.ndarray,
        vectors: Callable[[list[str]], np.ndarray],
        bm25: Callable[[str], float],
        bm25_stats: tuple[float, float],
        population: Population,
        dense_share: float,
        chain_share: float,
        key: Callable[[str], str],
    ) -> None:
        self.query = _unit(query[None, :])[0]
        self._vectors, self._bm25, self._bm25_stats = vectors, bm25, bm25_stats
        self.population = population
        self.dense_share, self.chain_share, self.key = dense_share, chain_share, key
        self._stats = population.stats(self.query)
        self._unit: dict[str, np.ndarray] = {}
        self._toward: dict[str, tuple[np.ndarray, float, float]] = {}
        self.value: dict[str, float] = {}  # content id -> best value so far
        self.via: dict[str, str] = {}  # content id -> the content whose chain set its value

    def known(self, content_ids: Iterable[str]) -> None:
        """Score contents by their own relevance (once each)."""
        new = [cid for cid in dict.fromkeys(content_ids) if cid not in self._unit]
        if not new:
            return
        units = _unit(self._vectors(new))
        mean, std = self._stats
        bm_mean, bm_std = self._bm25_stats
        for cid, unit in zip(new, units, strict=True):
            self._unit[cid] = unit
            dense = (float(unit @ self.query) - mean) / std
            sparse = (self._bm25(cid) - bm_mean) / bm_std
            own = self.dense_share * dense + (1.0 - self.dense_share) * sparse
            self.value.setdefault(cid, own)

    def chain(self, handing: str, reached: Iterable[str]) -> list[str]:
        """Score contents reached from ``handing``'s tags; the ids whose value rose."""
        reached = [cid for cid in reached if cid != handing]
        self.known([handing, *reached])
        moved, mean, std = self._moved(handing)
        base = self.value[handing]
        raised = []
        for cid in reached:
            near = (float(self._unit[cid] @ moved) - mean) / std
            value = (base + self.chain_share * near) / (1.0 + self.chain_share)
            if value > self.value[cid]:
                self.value[cid], self.via[cid] = value, handing
                raised.append(cid)
        return raised

    def _moved(self, handing: str) -> tuple[np.ndarray, float, float]:
        """The question moved toward ``handing``, and the sample's cosine statistics
        with it (once per handing content)."""
        if handing not in self._toward:
            moved = self.query + SHIFT * self._unit[handing]
            moved /= np.linalg.norm(moved) or 1.0
            self._toward[handing] = (moved, *self.population.stats(moved))
        return self._toward[handing]

    def best(self, among: Iterable[str], k: int) -> list[str]:
        """The ``k`` best-valued of ``among`` (ties: by content key)."""
        ids = set(among)
        return sorted(ids, key=lambda cid: (-self.value[cid], self.key(cid)))[:k]

    def scaled(self) -> dict[str, float]:
        """Every scored content's value on [0, 1] (the best 1, the worst 0), the blend's
        relevance scale."""
        if not self.value:
            return {}
        low, high = min(self.value.values()), max(self.value.values())
        span = (high - low) or 1.0
        return {cid: (value - low) / span for cid, value in self.value.items()}


def handed_tags(tags: Iterable[str], question: str) -> list[str]:
    """The tags a content hands on: those the question does not already name (the
    first round entered there)."""
    asked = question.casefold()
    return [tag for tag in tags if tag.casefold() not in asked]


def _unit(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms > 0, norms, 1.0)
