"""The evidence profile of a reconstruction: what an abstention rule decides on.

Each feature is one function of an :class:`Evidence` (the question, the entry
cues, the reranked pool, the context and the memory's word rarity) returning a
float, registered in :data:`FEATURES`; adding a feature is adding a function
there. Scores are read relative to the pool (a margin, a ratio) where the raw
scale depends on the genome, so a rule fitted under one genome degrades rather
than breaks under another.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from mragent.core.extract import entity_spans
from mragent.core.retrieval.cue_search import CueHit
from mragent.core.retrieval.extractive import stem
from mragent.core.retrieval.rerank import Ranked
from mragent.core.retrieval.synthesis import Context
from mragent.core.text import content_words

TOP = 2  # the "final top": the two best contents of the pool


@dataclass(frozen=True)
class Evidence:
    """What one reconstruction found, as the features read it."""

    question: str
    entries: Sequence[CueHit]
    ranked: Sequence[Ranked]
    context: Context
    idf: Callable[[str], float]


def _coverage(ev: Evidence, texts: Iterable[str]) -> float:
    """Share of the question's content words (idf-weighted, on stems) the texts hold."""
    asked = {stem(w): ev.idf(w) for w in content_words(ev.question)}
    total = math.fsum(asked.values())
    if not total:
        return 0.0
    seen = {stem(w) for text in texts for w in content_words(text)}
    return math.fsum(weight for s, weight in asked.items() if s in seen) / total


def coverage(ev: Evidence) -> float:
    """Idf-weighted coverage of the question by every content handed to synthesis."""
    return _coverage(ev, (r.candidate.text for r in ev.context.items))


def coverage_top(ev: Evidence) -> float:
    """Idf-weighted coverage of the question by the best :data:`TOP` contents."""
    return _coverage(ev, (r.candidate.text for r in ev.ranked[:TOP]))


def coverage_best_item(ev: Evidence) -> float:
    """The best coverage any one kept content gives on its own (one passage that is
    about the whole question, against words scattered over several)."""
    return max((_coverage(ev, [r.candidate.text]) for r in ev.context.items), default=0.0)


def names_found(ev: Evidence) -> float:
    """Share of the question's names that occur in the kept contents (1 without names)."""
    names = entity_spans(ev.question)
    if not names:
        return 1.0
    evidence = ev.context.evidence_text.lower()
    return sum(name.lower() in evidence for name in names) / len(names)


def top_score(ev: Evidence) -> float:
    """The best final score (0 for an empty pool)."""
    return ev.ranked[0].score if ev.ranked else 0.0


def margin(ev: Evidence) -> float:
    """How far the best content stands above the second, relative to the best."""
    if len(ev.ranked) < 2 or ev.ranked[0].score <= 0:
        return 1.0 if ev.ranked else 0.0
    return (ev.ranked[0].score - ev.ranked[1].score) / ev.ranked[0].score


def tail_ratio(ev: Evidence) -> float:
    """The last kept content's score over the best's: a flat pool is a weak one."""
    items = ev.context.items
    if not items or items[0].score <= 0:
        return 0.0
    return items[-1].score / items[0].score


def entry_agreement(ev: Evidence) -> float:
    """Share of the final top that the question's passage seeds entered at directly."""
    top = [r.candidate.id for r in ev.ranked[:TOP]]
    if not top:
        return 0.0
    seeded = {hit.seed for hit in ev.entries if hit.seed is not None}
    return sum(cid in seeded for cid in top) / len(top)


def entry_dense(ev: Evidence) -> float:
    """The best dense similarity of an entry cue: how near the question any cue came
    (entry scores are scaled to the best one, so they cannot say this)."""
    return max((hit.dense for hit in ev.entries), default=0.0)


FEATURES: dict[str, Callable[[Evidence], float]] = {
    f.__name__: f
    for f in (
        coverage,
        coverage_top,
        coverage_best_item,
        names_found,
        top_score,
        margin,
        tail_ratio,
        entry_agreement,
        entry_dense,
    )
}
"""Feature name -> its function; a rule names the features it was fitted on."""


def profile(ev: Evidence, names: Iterable[str] | None = None) -> dict[str, float]:
    """The named features of ``ev`` (default: all of them), as floats."""
    return {name: float(FEATURES[name](ev)) for name in (names or FEATURES)}


def uncovered(evidence: Mapping[str, float], min_coverage: float, min_names: float) -> bool:
    """The genome's abstention rule on a profile: the context covers less than
    ``min_coverage`` of the question (:func:`coverage`), or holds less than
    ``min_names`` of the names it uses (:func:`names_found`; 1: every name). A memory
    that never heard of the question's subject should say so rather than guess."""
    return evidence["coverage"] < min_coverage or evidence["names_found"] < min_names
