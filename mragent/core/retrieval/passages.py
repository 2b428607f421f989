"""Stage 1b: passage seeding, so the graph starts from the passages a question names.

Cue search matches the question against short cue texts (tag names, keywords).
A question usually says more about its first-hop passage as a whole than any
single cue does ("the association which published Journal X"), so this stage
also scores the memory's contents by BM25 over title and text, once per
question, and turns the best of them into entry candidates that compete with
cue-search hits for the same ``cueK`` entry points: each seed enters the graph
at the cue of its primary tag (the content's title; every tag has a cue of the
same text), with a score scaled like a cue's, top seed 1.0. The traversal then
runs from all entry points as usual. The same scoring gives each content's
relevance for :func:`~mragent.core.retrieval.blend.blend`.

:class:`PassageIndex` follows a namespace's change feed: it holds, per content,
its id, key, title, scope and the state the read view depends on (forgotten,
record times, trust and its log), BM25 postings of its title and text, never
the text itself, and its passage vector in an HNSW index
(:class:`~mragent.core.retrieval.passage_dense.DensePassages`).
:meth:`PassageIndex.entry` scores a question by both, fused
(:func:`~mragent.core.retrieval.passage_dense.fused_passages`), on BM25's scale.
:meth:`PassageIndex.admitted` mirrors the view predicate
(``cypher/fragments/visible.cypher``) only to fix the population a question is
scored against and to propose seeds; whether a seed may enter, and every text
handed to synthesis, is the database's answer in the traversal's round trip.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mragent.core.genome import Genome
from mragent.core.retrieval.cue_search import CueHit, CueIndex, top_positions
from mragent.core.retrieval.passage_dense import DensePassages, fused_passages
from mragent.core.retrieval.slot_keys import SlotKeys
from mragent.core.retrieval.sparse_index import SparseHits, SparseIndex
from mragent.core.string_arrays import StringColumn
from mragent.core.text import content_words
from mragent.core.view import ReadView

SEED_FLOOR = 0.2  # seeds scoring under this share of the best seed are not evidence
TRUST_CODES = {"accepted": 0, "pending": 1, "rejected": 2}
_OTHER_TRUST = 3
_GROW = 1.5


class PassageIndex:
    """BM25 and passage vectors over a namespace's contents, with their view state.

    Args:
        dimension: The embedder's dimension (of the passage vectors).
        dense: Whether passages enter densely too (False: their vectors are not kept,
            and BM25 alone scores them).
    """

    def __init__(self, dimension: int = 0, dense: bool = True) -> None:
        self.ids: StringColumn = []
        self.keys = SlotKeys()
        self.titles: StringColumn = []
        self.scopes: list[str] = []
        self.slot_of: MutableMapping[str, int] = {}
        self.logs: dict[int, tuple[list[float], list[str]]] = {}  # trust changes, if any
        self.scope_names: list[str] = []
        self.columns = _Columns()
        self.sparse = SparseIndex()
        self.dense = DensePassages(dimension)
        self.dense_entry = dense
        self._admitted_count: tuple[np.ndarray | None, int, int] = (None, -1, 0)

    def __len__(self) -> int:
        return int(np.count_nonzero(self.columns.live))

    def apply(self, rows: Iterable[dict[str, Any]], full: bool = False) -> int:
        """Add new contents and update the view state (and vector) of known ones.

        Args:
            rows: ``index_contents`` rows (``forgotten`` contents leave the index; an
                ``embedding`` is the content's passage vector).
            full: A full build: vectors enter the HNSW index in key order, else in
                (version, key) order; never in the random ids' order, so the graph
                built is the same whatever ids the engine's ingest drew.

        Returns:
            How many rows were applied.
        """
        applied = 0
        vectors: list[tuple[tuple[int, str], int, Any, str]] = []
        for row in rows:
            slot = self.slot_of.get(row["id"])
            if row["forgotten"]:
                if slot is not None and self.columns.live[slot]:
                    self.columns.live[slot] = False
                    self.sparse.remove(slot)
                    self.dense.clear(slot)
            else:
                if slot is None:
                    slot = self._new_slot(row)
                self._set_state(slot, row)
                # No embedding: a content written before contents carried one.
                if self.dense_entry and row.get("embedding") is not None:
                    order = (0 if full else int(row["v"]), row["key"])
                    vectors.append((order, slot, row["embedding"], row["id"]))
            applied += 1
        vectors.sort(key=lambda item: item[0])
        self.dense.add([(slot, vector, cid) for _, slot, vector, cid in vectors], bulk=full)
        return applied

    def _new_slot(self, row: dict[str, Any]) -> int:
        slot = len(self.ids)
        self.columns.reserve(slot + 1)
        self.slot_of[row["id"]] = slot
        self.ids.append(row["id"])
        self.keys.append(row["key"])
        self.titles.append(row["title"] or "")
        self.scopes.append(row["scope"])
        self.columns.live[slot] = True
        self.sparse.add(slot, content_words(f"{row['title'] or ''} {row['text'] or ''}"))
        return slot

    def _set_state(self, slot: int, row: dict[str, Any]) -> None:
        if row["scope"] not in self.scope_names:
            self.scope_names.append(row["scope"])
        self.scopes[slot] = row["scope"]
        columns = self.columns
        columns.scope[slot] = self.scope_names.index(row["scope"])
        columns.recorded[slot] = _time(row["recorded_at"])
        columns.superseded[slot] = _time(row["superseded_at"])
        columns.trust[slot] = TRUST_CODES.get(row["trust"], _OTHER_TRUST)
        columns.trust_since[slot] = _time(row["trust_since"])
        if len(row["trust_at"] or ()) > 1:
            self.logs[slot] = (list(row["trust_at"]), list(row["trust_log"]))

    def admitted(self, view: ReadView, now: float) -> np.ndarray:
        """Slots of the contents ``view`` sees at ``now`` (its record time, if set).

        Mirrors ``fragments/visible.cypher``: live, in one of the view's scopes,
        current at the record time, in one of the view's trust states then.
        """
        at = view.as_of if view.as_of is not None else now
        c = self.columns
        scopes = [i for i, name in enumerate(self.scope_names) if name in view.scopes]
        with np.errstate(invalid="ignore"):
            ok = c.live & np.isin(c.scope, scopes) & (c.recorded <= at) & ~(c.superseded <= at)
            trust = c.trust.copy()
            for slot in np.flatnonzero(ok & (c.trust_since > at)).tolist():
                times, states = self.logs.get(slot, ([], []))
                then = sum(1 for t in times if t <= at) - 1
                trust[slot] = TRUST_CODES.get(states[then], _OTHER_TRUST) if then >= 0 else -1
        return ok & np.isin(trust, [TRUST_CODES[state] for state in view.trust])

    def next_change(self, after: float) -> float:
        """The first record or trust time later than ``after`` (inf: none): until then a
        view read "now" admits the same contents."""
        c = self.columns
        times = np.concatenate([c.recorded, c.superseded, c.trust_since])
        with np.errstate(invalid="ignore"):
            later = times[times > after]
        return float(later.min()) if len(later) else math.inf

    def idf(self, word: str, mask: np.ndarray) -> float:
        """Rarity of ``word`` among the admitted contents (unknown: rarest)."""
        held, size, n = self._admitted_count
        if held is not mask or size != len(self.ids):  # counted once per mask and size
            n = max(1, int(np.count_nonzero(mask[: len(self.ids)])))
            self._admitted_count = (mask, len(self.ids), n)
        df = self.sparse.document_frequency(word, mask)
        return math.log(1 + n / df) if df else math.log(1 + n)

    def score(self, question: str, mask: np.ndarray) -> Scored:
        """The question's one BM25 scoring of the admitted contents."""
        return Scored(self, self.sparse.scores(content_words(question), mask))

    def entry(self, question: str, vector: np.ndarray, mask: np.ndarray, genome: Genome) -> Scored:
        """The question's passage scores: BM25 fused with the passages nearest its query
        embedding (HNSW at efSearch) by the genome's fusion and hybridAlpha."""
        sparse = self.sparse.scores(content_words(question), mask)
        if genome.hybridAlpha == 0.0:
            return Scored(self, sparse)
        near = self.dense.search(vector, genome.efSearch, mask)
        return Scored(self, *fused_passages(sparse, near, genome, self.keys))


@dataclass(frozen=True)
class Scored:
    """One question's passage scores (BM25, or fused with the dense passage hits on
    BM25's scale): seeds and relevance come from it."""

    index: PassageIndex
    hits: SparseHits
    ties: Callable[[int], Any] | None = None  # slot -> tie key (None: the content key)

    @property
    def top(self) -> float:
        return float(self.hits.scores.max()) if len(self.hits) else 0.0

    def seeds(self, k: int, cues: CueIndex, cue_mask: np.ndarray) -> list[CueHit]:
        """Entry candidates for the most relevant contents that have a title cue.

        Of the ``2 k`` best contents (ties: the fused rank, else the content key),
        every one with an admitted title cue scoring at least :data:`SEED_FLOOR` of the
        best, best first: the first ``k`` are the seeds, the rest stand by for those
        the database refuses.
        """
        index, hits = self.index, self.hits
        top = self.top if self.top > 0 else 1.0
        out: list[CueHit] = []
        tie = index.keys if self.ties is None else self.ties
        for i in top_positions(hits.scores, hits.slots, 2 * k, tie):
            slot, value = int(hits.slots[i]), float(hits.scores[i])
            cue = cues.by_text.get((index.scopes[slot], index.titles[slot]))
            if cue is None or not cue_mask[cue] or value / top < SEED_FLOOR:
                continue
            out.append(
                CueHit(
                    cues.ids[cue],
                    index.titles[slot],
                    0.0,
                    value,
                    value,
                    value / top,
                    seed=index.ids[slot],
                )
            )
        return out

    def relevance(self) -> Relevance:
        """Content id -> passage score scaled so the best content scores 1.0."""
        return Relevance(self)


class Relevance(Mapping[str, float]):
    """A content's relevance, looked up on demand (the scoring is not copied into a dict)."""

    def __init__(self, scored: Scored) -> None:
        self.scored = scored
        self.top = scored.top

    def __getitem__(self, content_id: str) -> float:
        slot = self.scored.index.slot_of.get(content_id)
        slots = self.scored.hits.slots
        i = int(np.searchsorted(slots, slot)) if slot is not None else len(slots)
        if self.top <= 0 or i >= len(slots) or slots[i] != slot:
            raise KeyError(content_id)
        return float(self.scored.hits.scores[i]) / self.top

    def __iter__(self) -> Iterator[str]:
        ids = self.scored.index.ids
        return iter([] if self.top <= 0 else [ids[int(s)] for s in self.scored.hits.slots])

    def __len__(self) -> int:
        return len(self.scored.hits) if self.top > 0 else 0


def merge_cues(found: Sequence[CueHit], seeds: Sequence[CueHit]) -> list[CueHit]:
    """Cue-search hits and passage seeds in one order, one entry per cue.

    Seeds compete for the same ``cueK`` entry points as cues, so cueK bounds
    every entry (ties: the better rank in its own list, seeds before cues: a
    passage the question is about is a stronger entry than a single cue).
    """
    order: dict[str, tuple[float, int, CueHit]] = {}
    for rank, hit in [*enumerate(seeds), *enumerate(found)]:
        key = (-hit.score, rank, hit)
        if hit.id not in order or key[:2] < order[hit.id][:2]:
            order[hit.id] = key
    return [hit for _, _, hit in sorted(order.values(), key=lambda item: item[:2])]


class _Columns:
    """The per-slot state arrays of a :class:`PassageIndex`."""

    def __init__(self) -> None:
        self.live = np.zeros(0, dtype=bool)
        self.scope = np.zeros(0, dtype=np.int16)
        self.recorded = np.zeros(0, dtype=np.float64)
        self.superseded = np.zeros(0, dtype=np.float64)
        self.trust = np.zeros(0, dtype=np.int8)
        self.trust_since = np.zeros(0, dtype=np.float64)

    def reserve(self, size: int) -> None:
        if size <= len(self.live):
            return
        grow = max(size, int(len(self.live) * _GROW) + 16) - len(self.live)
        for name, fill in (("live", False), ("scope", 0), ("recorded", np.nan),
                           ("superseded", np.nan), ("trust", _OTHER_TRUST),
                           ("trust_since", np.nan)):  # fmt: skip
            old = getattr(self, name)
            setattr(self, name, np.concatenate([old, np.full(grow, fill, dtype=old.dtype)]))

    def arrays(self, size: int) -> dict[str, np.ndarray]:
        """The first ``size`` entries of each column, by name."""
        return {name: getattr(self, name)[:size] for name in vars(self)}


def _time(value: Any) -> float:
    return float(value) if value is not None else math.nan
