"""An incremental, vectorised BM25 index over numbered slots (cue texts, or contents).

A reader's sparse indexes follow the namespace's change feed, so documents come
and go one at a time; bm25s, the maintained library this scorer is checked
against, builds a fixed sparse matrix and has no add or remove. This index keeps
term -> postings arrays (slot, term frequency), document lengths and a live mask,
and scores a question once with numpy over the postings of its terms.

The postings are kept in two parts: a flat base (every term's postings end to
end, by offsets: what :meth:`SparseIndex.to_arrays` saves, and what
:meth:`SparseIndex.from_arrays` takes as it is, memory-mapped from a persisted
copy included) and, per term, the postings added since. Loading a copy thus
builds no per-term arrays: a term's postings are its base slice and its
additions, joined when a question asks for them.

Scores are computed at query time from the statistics of the documents the
caller's mask admits (their number and mean length, each term's document
frequency among them), so they never depend on the order documents were added
or removed in: adding, removing and re-adding in any order gives the scores of
a fresh build. They equal bm25s' ``method="lucene"`` (Lucene IDF
``ln(1 + (N - df + 0.5) / (df + 0.5))``, term part ``tf / (tf + k1 (1 - b + b
dl / avgdl))``) on the same tokens; a test asserts that to 1e-6. What a population
costs to compute is kept with it until a document comes or goes: its statistics, its
document frequencies, and the scoring of its common terms (a word on 80k contents
recurs across questions).

:meth:`SparseIndex.best` bounds the work by ``k`` (MaxScore): each term keeps an
upper bound of its term part (its largest term frequency at its shortest document
length, kept on add; a removal leaves it a bound still). A first floor is the
``k``-th best score among the documents of the highest-bounded terms; a document
holding only terms whose bounds sum below it cannot be among the ``k`` best, nor can
one whose part from its highest-bounded term plus the bounds of the terms below that
one falls short of it. The rest are scored term by term in the question's order, as
:meth:`SparseIndex.scores` scores them, so their scores are the same floats and the
``k`` best, ties and all, are the same documents. The libraries that prune this way
take their statistics from the whole index and keep a document's length in one byte,
lossy for long ones (Lucene, tantivy), or build a static index (PISA); bm25s scores
every document and then selects. None scores against a per-question population, as
the read view needs, so the index keeps its own.

The callers (cue search's fusion side, passage seeding and relevance, later rounds'
z-scores) read more of a question's scores than its best few: every content's
relevance, and the ranks, minimum, maximum, mean and spread of the whole population
that fusion and the rounds normalise by. They score exhaustively; :meth:`best` is
for a caller that needs the ``k`` best alone.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from mragent.core.retrieval.selection import kth_largest
from mragent.core.string_arrays import packed, unpacked

K1 = 1.5
B = 0.75
_GROW = 1.5
_FREQUENCIES_KEPT = 1 << 16  # document frequencies kept per population, at most
_SAFETY = 1e-9  # relative slack on a bound: float sums differ from exact ones far below it
_TERM_KEPT_MIN = 4096  # admitted postings from which a term's scoring is kept
_TERMS_KEPT = 1 << 21  # postings of kept terms per population, at most (about 32 MB)


class _Term(NamedTuple):
    """One query term under a population: its admitted slots, their term frequencies,
    its IDF, its bounds (largest tf, shortest length) and its part of each slot's score."""

    slots: np.ndarray
    tfs: np.ndarray
    idf: float
    tf_max: float
    length_min: float
    values: np.ndarray


class _KeptTerms(dict[str, _Term]):
    """The common terms scored under one population, kept for the next question that
    asks for them (a word on 39k cue texts or 80k contents recurs across questions)."""

    postings = 0


# A mask, the index's changes when it was read, the live slots it admits, their number
# and mean length, every slot's length norm, document frequencies counted under it, and
# the common terms scored under it.
_Population = tuple[np.ndarray, int, np.ndarray, int, float, np.ndarray, dict[str, int], _KeptTerms]


@dataclass(frozen=True)
class SparseHits:
    """The documents a question shares a term with, and their scores.

    Attributes:
        slots: Slot numbers (unique, ascending).
        scores: Their BM25 scores, aligned with ``slots``.
    """

    slots: np.ndarray
    scores: np.ndarray

    def __len__(self) -> int:
        return len(self.slots)


class SparseIndex:
    """BM25 postings over slots ``0..capacity-1``; the owner assigns the slots.

    Args:
        k1: Term-frequency saturation.
        b: Length normalisation.
    """

    def __init__(self, k1: float = K1, b: float = B) -> None:
        self.k1, self.b = k1, b
        self.vocab: dict[str, int] = {}
        # The base: term t's slots and frequencies are [offsets[t], offsets[t + 1]) of
        # these (terms past the offsets have none there). Never written in place.
        self._offsets = np.zeros(1, np.int64)
        self._base_slots = np.zeros(0, np.int32)
        self._base_tfs = np.zeros(0, np.float32)
        self._slots: dict[int, array] = {}  # per term: slots added since ('i')
        self._tfs: dict[int, array] = {}  # per term: their frequencies ('f'), aligned
        self._tf_max = array("f")  # per term: its largest term frequency (a bound)
        self._length_min = array("f")  # per term: its shortest document's length (a bound)
        self.lengths = np.zeros(0, dtype=np.float64)
        self.live = np.zeros(0, dtype=bool)
        self.dead_postings = 0
        self._changes = 0  # adds and removes so far: what the cached statistics depend on
        self._population: _Population | None = None

    def _reserve(self, slot: int) -> None:
        if slot < len(self.live):
            return
        size = max(slot + 1, int(len(self.live) * _GROW) + 16)
        self.lengths = np.concatenate([self.lengths, np.zeros(size - len(self.lengths))])
        self.live = np.concatenate([self.live, np.zeros(size - len(self.live), dtype=bool)])

    def add(self, slot: int, tokens: Iterable[str]) -> None:
        """Index a document at ``slot`` (which must not be live)."""
        if slot < len(self.live) and self.live[slot]:
            raise ValueError(f"slot {slot} already holds a document")
        self._reserve(slot)
        counts = Counter(tokens)
        length = sum(counts.values())
        for term, tf in counts.items():
            tid = self.vocab.get(term)
            if tid is None:
                tid = self.vocab[term] = len(self.vocab)
                self._tf_max.append(tf)
                self._length_min.append(length)
            added = self._slots.get(tid)
            if added is None:
                added = self._slots[tid] = array("i")
                self._tfs[tid] = array("f")
            added.append(slot)
            self._tfs[tid].append(tf)
            self._tf_max[tid] = max(self._tf_max[tid], tf)
            self._length_min[tid] = min(self._length_min[tid], length)
        self.lengths[slot] = length
        self.live[slot] = True
        self._changes += 1

    def remove(self, slot: int) -> None:
        """Drop the document at ``slot`` (its postings are skipped until :meth:`compact`)."""
        if slot < len(self.live) and self.live[slot]:
            self.live[slot] = False
            self.dead_postings += 1
            self._changes += 1

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """``(slots, term frequencies)`` of ``term`` (dead slots included)."""
        tid = self.vocab.get(term)
        if tid is None:
            return np.zeros(0, np.int32), np.zeros(0, np.float32)
        if tid + 1 < len(self._offsets):
            start, end = int(self._offsets[tid]), int(self._offsets[tid + 1])
            slots, tfs = self._base_slots[start:end], self._base_tfs[start:end]
        else:
            slots, tfs = self._base_slots[:0], self._base_tfs[:0]
        added = self._slots.get(tid)
        if added is None:  # the base's own slices: nobody writes to them
            return slots, tfs
        # Copies of the additions, not views: an array exporting its buffer cannot grow.
        more = np.array(added, dtype=np.int32), np.array(self._tfs[tid], np.float32)
        return np.concatenate([slots, more[0]]), np.concatenate([tfs, more[1]])

    def document_frequency(self, term: str, mask: np.ndarray) -> int:
        """How many documents ``mask`` admits contain ``term`` (kept with the population:
        synthesis asks for every word of every sentence it weighs, and a common word's
        postings run to hundreds of thousands at a million contents)."""
        held = self._held(mask)
        admitted, frequencies = held[2], held[6]
        df = frequencies.get(term)
        if df is None:
            if len(frequencies) >= _FREQUENCIES_KEPT:
                frequencies.clear()
            slots, _ = self.postings(term)
            df = frequencies[term] = int(np.count_nonzero(admitted[slots]))
        return df

    def scores(self, terms: Sequence[str], mask: np.ndarray) -> SparseHits:
        """BM25 of every admitted document sharing a term with ``terms``.

        Args:
            terms: Query tokens; a repeated token counts once.
            mask: Booleans over slots: the documents that exist for this query (a
                slot past its end does not); the statistics are theirs.
        """
        return self._score(self._terms(terms, mask)[0], None)

    def best(self, terms: Sequence[str], mask: np.ndarray, k: int) -> SparseHits:
        """The documents of :meth:`scores` that can be among its ``k`` best, with the
        same scores: every one scoring at least the ``k``-th best score (so every tie at
        the cut), and only as many others as the bounds could not rule out.

        The ``k`` best of these, by any order of scores and tie keys, are the ``k``
        best of :meth:`scores` in that order.
        """
        parts, avg = self._terms(terms, mask)
        if k <= 0 or not parts:
            return _empty()
        bounds = [
            term.idf
            * term.tf_max
            / (term.tf_max + self.k1 * (1 - self.b + self.b * term.length_min / avg))
            for term in parts
        ]
        order = sorted(range(len(parts)), key=lambda i: bounds[i])
        # A first floor: the k-th best score among the documents of the terms with the
        # highest bounds, as few of them as hold k documents.
        member = np.zeros(len(self.live), dtype=bool)
        held = 0
        for i in reversed(order):
            member[parts[i].slots] = True
            held += len(parts[i].slots)
            if held >= k and np.count_nonzero(member) >= k:
                break
        else:
            return self._score(parts, None)  # k or fewer documents in all
        first = self._score(parts, member).scores
        floor = kth_largest(first, k)
        # A document's score is at most its part from the highest-bounded term it holds
        # plus the bounds of the terms below that one. The terms whose bounds sum below
        # the floor cannot lift a document to it alone; of each other term, only the
        # documents whose part and the bounds below could reach it are scored.
        below, rest = 0.0, 0
        while rest < len(order) and (below + bounds[order[rest]]) * (1 + _SAFETY) < floor:
            below += bounds[order[rest]]
            rest += 1
        member[:] = False
        for i in order[rest:]:
            reach = parts[i].values + below
            member[parts[i].slots[reach * (1 + _SAFETY) >= floor]] = True
            below += bounds[i]
        return self._score(parts, member)

    def _terms(self, terms: Sequence[str], mask: np.ndarray) -> tuple[list[_Term], float]:
        """Each distinct term with admitted postings, in query order, scored under the
        population ``mask`` admits; and the population's mean length."""
        held = self._held(mask)
        admitted, n, avg, norms, kept = held[2], held[3], held[4], held[5], held[7]
        found: list[_Term] = []
        if n == 0:
            return found, avg
        for term in dict.fromkeys(terms):
            scored = kept.get(term)
            if scored is None:
                slots, tfs = self.postings(term)
                if not len(slots):
                    continue
                keep = admitted[slots]
                slots, tfs = slots[keep], tfs[keep]
                if not len(slots):
                    continue
                df = len(slots)
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                tid = self.vocab[term]
                wide = tfs.astype(np.float64)
                values = idf * wide / (wide + norms[slots])
                scored = _Term(slots, tfs, idf, self._tf_max[tid], self._length_min[tid], values)
                if df >= _TERM_KEPT_MIN:
                    if kept.postings + df > _TERMS_KEPT:
                        kept.clear()
                        kept.postings = 0
                    kept[term] = scored
                    kept.postings += df
            found.append(scored)
        return found, avg

    def _score(self, parts: list[_Term], member: np.ndarray | None) -> SparseHits:
        """Scores of the documents in ``member`` (None: all), summed in query order."""
        found: list[np.ndarray] = []
        values: list[np.ndarray] = []
        for term in parts:
            slots, part = term.slots, term.values
            if member is not None:
                chosen = member[slots]
                slots, part = slots[chosen], part[chosen]
                if not len(slots):
                    continue
            found.append(slots)
            values.append(part)
        if not found:
            return _empty()
        return _summed(np.concatenate(found), np.concatenate(values))

    def _held(self, mask: np.ndarray) -> _Population:
        """The population ``mask`` admits: the live documents it admits, their number and
        mean length, every slot's length norm ``k1 (1 - b + b dl / avgdl)`` under that
        mean, and the document frequencies counted and common terms scored under it.

        These pass over every slot, so they are kept for the last mask asked about
        until a document comes or goes: a reader asks with the same mask object until
        its view changes, and a question then costs only its terms' postings. One
        tuple, so a reader on another thread that swaps the population in never mixes
        its counts with this one's."""
        held = self._population
        if held is not None and held[0] is mask and held[1] == self._changes:
            return held
        admitted = _fit(mask, len(self.live)) & self.live
        n = int(np.count_nonzero(admitted))
        avg = float(self.lengths[admitted].sum()) / n or 1.0 if n else 1.0
        # The same elementwise floats a question's postings would compute, once.
        norms = self.k1 * (1 - self.b + self.b * self.lengths / avg)
        held = (mask, self._changes, admitted, n, avg, norms, {}, _KeptTerms())
        self._population = held
        return held

    def compact(self) -> None:
        """Drop the postings of removed documents and terms left without any."""
        if self.dead_postings:
            self._rebase(drop_dead=True)
            self.dead_postings = 0

    def _rebase(self, drop_dead: bool) -> None:
        """Make every term's postings (less removed documents' with ``drop_dead``, and
        then the terms left without any) the new base, in vocabulary order."""
        vocab: dict[str, int] = {}
        slots_out: list[np.ndarray] = []
        tfs_out: list[np.ndarray] = []
        for term in self.vocab:
            slots, tfs = self.postings(term)
            if drop_dead:
                keep = self.live[slots]
                if not keep.any():
                    continue
                slots, tfs = slots[keep], tfs[keep]
            vocab[term] = len(slots_out)
            slots_out.append(slots)
            tfs_out.append(tfs)
        sizes = [len(slots) for slots in slots_out]
        self._offsets = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)])
        self._base_slots = _flat(slots_out, np.int32)
        self._base_tfs = _flat(tfs_out, np.float32)
        self.vocab, self._slots, self._tfs = vocab, {}, {}
        self._bound_terms()

    def _bound_terms(self) -> None:
        """Each term's bounds from the base postings (after a load or a rebase, when no
        term has additions)."""
        sizes = np.diff(self._offsets)
        tf_max = np.zeros(len(self.vocab), np.float32)  # a term without postings is never scored
        length_min = np.zeros(len(self.vocab), np.float32)
        held = np.flatnonzero(sizes)
        if len(held):
            starts = self._offsets[:-1][held]
            tfs = np.asarray(self._base_tfs, np.float32)
            lengths = self.lengths[self._base_slots].astype(np.float32)
            tf_max[held] = np.maximum.reduceat(tfs, starts)
            length_min[held] = np.minimum.reduceat(lengths, starts)
        self._tf_max = array("f", tf_max.tobytes())
        self._length_min = array("f", length_min.tobytes())

    # -- persistence: flat arrays, no text beyond the vocabulary --------------------

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The index as flat arrays (compacted first): for ``numpy.save``."""
        if self.dead_postings or self._slots:
            self._rebase(drop_dead=bool(self.dead_postings))
            self.dead_postings = 0
        return {
            **packed("terms", list(self.vocab)),
            "offsets": self._offsets,
            "slots": self._base_slots,
            "tfs": self._base_tfs,
            "lengths": self.lengths,
            "live": self.live,
            "tf_max": np.frombuffer(self._tf_max, np.float32),
            "length_min": np.frombuffer(self._length_min, np.float32),
        }

    @classmethod
    def from_arrays(cls, data: dict[str, np.ndarray]) -> SparseIndex:
        """An index saved by :meth:`to_arrays`. The postings arrays become its base as
        they are (memory-mapped ones stay mapped); only the vocabulary, the lengths, the
        live mask and the terms' bounds are read into memory (the bounds recomputed
        from the postings when the arrays have none).

        Raises:
            ValueError: when the arrays do not describe one index.
        """
        index = cls()
        terms = unpacked("terms", data)
        offsets, slots, tfs = data["offsets"], data["slots"], data["tfs"]
        if (
            offsets.ndim != 1
            or len(offsets) != len(terms) + 1
            or slots.shape != tfs.shape
            or (len(offsets) and (int(offsets[0]) != 0 or int(offsets[-1]) != len(slots)))
            or bool(np.any(np.diff(offsets) < 0))
        ):
            raise ValueError("sparse index arrays do not agree")
        index.vocab = {term: i for i, term in enumerate(terms)}
        index._offsets = np.asarray(offsets, np.int64)
        index._base_slots = np.asarray(slots, np.int32)
        index._base_tfs = np.asarray(tfs, np.float32)
        index.lengths = np.array(data["lengths"], dtype=np.float64)
        index.live = np.array(data["live"], dtype=bool)
        if "tf_max" in data and "length_min" in data:  # the bounds kept with the postings
            tf_max = np.asarray(data["tf_max"], np.float32)
            length_min = np.asarray(data["length_min"], np.float32)
            if tf_max.shape != (len(terms),) or length_min.shape != (len(terms),):
                raise ValueError("sparse index bounds do not fit its terms")
            index._tf_max = array("f", tf_max.tobytes())
            index._length_min = array("f", length_min.tobytes())
        else:
            index._bound_terms()
        return index


def _summed(slots: np.ndarray, values: np.ndarray) -> SparseHits:
    """``values`` summed by slot, each slot's in the order given (``np.bincount`` adds in
    input order), slots ascending.

    A term's postings ascend by slot when slots are handed out in order, as the indexes
    here do, so ``slots`` is a few ascending runs: a stable sort (timsort) merges them
    several times faster than the quicksort ``np.unique`` would run, and any order
    still sorts correctly.
    """
    order = np.argsort(slots, kind="stable")
    ordered = slots[order]
    first = np.empty(len(ordered), dtype=bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    inverse = np.empty(len(ordered), dtype=np.intp)
    inverse[order] = np.cumsum(first) - 1
    return SparseHits(ordered[first], np.bincount(inverse, weights=values))


def _empty() -> SparseHits:
    return SparseHits(np.zeros(0, np.int32), np.zeros(0, np.float64))


def _flat(lists: list[np.ndarray], dtype: type) -> np.ndarray:
    if not lists:
        return np.zeros(0, dtype)
    return np.concatenate(lists).astype(dtype, copy=False)


def _fit(mask: np.ndarray, size: int) -> np.ndarray:
    """``mask`` cut or padded (with False) to ``size``."""
    if len(mask) >= size:
        return mask[:size]
    return np.concatenate([mask, np.zeros(size - len(mask), dtype=bool)])
