"""Stage 3b: context assembly (``promptStrategy``) and answer synthesis.

Strategies decide what is handed to synthesis:

* ``evidence-first``: the ``maxContent`` best items, strongest first;
* ``terse``: the fewest items that carry the answer: the top item, and the
  next ones only while they are nearly as strong (>= ``TERSE_RATIO`` of the
  top), at most ``TERSE_MAX``;
* ``prune-explicit``: items weaker than ``PRUNE_RATIO`` of the top are dropped
  and named in the context as dropped, so a reader (or an LLM) knows what was
  left out.

The default :class:`ExtractiveSynthesizer` answers with a span of the context;
any object with the :class:`Synthesizer` shape (an LLM call, say) can replace it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from mragent.extract import entity_spans
from mragent.genome import PromptStrategy
from mragent.retrieval.rerank import Ranked
from mragent.text import content_words, count_tokens

TERSE_RATIO = 0.75
TERSE_MAX = 3
PRUNE_RATIO = 0.35
ABSTAIN_COVERAGE = 0.5


@dataclass(frozen=True)
class Context:
    """What synthesis sees."""

    items: tuple[Ranked, ...]
    dropped: tuple[Ranked, ...]
    text: str

    @property
    def tokens(self) -> int:
        return count_tokens(self.text)

    @property
    def evidence_text(self) -> str:
        """The kept items' texts only: what an answer may be judged against.

        The list of dropped titles is context for a reader, not evidence.
        """
        return "\n".join(r.candidate.text for r in self.items)


def assemble(ranked: list[Ranked], strategy: PromptStrategy, max_content: int) -> Context:
    """Build the context handed to synthesis."""
    pool = ranked[:max_content]
    dropped: list[Ranked] = []
    if strategy is PromptStrategy.TERSE and pool:
        top = pool[0].score
        kept = [pool[0]] + [r for r in pool[1:TERSE_MAX] if r.score >= TERSE_RATIO * top]
    elif strategy is PromptStrategy.PRUNE_EXPLICIT and pool:
        top = pool[0].score
        kept = [r for r in pool if r.score >= PRUNE_RATIO * top]
        dropped = [r for r in pool if r.score < PRUNE_RATIO * top]
    else:
        kept = pool
    lines = [f"[{i}] {r.candidate.title}: {r.candidate.text}" for i, r in enumerate(kept, 1)]
    if dropped:
        lines.append("Dropped as weak evidence: " + "; ".join(r.candidate.title for r in dropped))
    return Context(tuple(kept), tuple(dropped), "\n".join(lines))


@dataclass(frozen=True)
class Answer:
    """A synthesised answer; ``text`` is None when the system abstains."""

    text: str | None
    sentence: str = ""

    @property
    def abstained(self) -> bool:
        return self.text is None


class Synthesizer(Protocol):
    """Turns a question and its context into an answer (or an abstention)."""

    def answer(self, question: str, context: Context) -> Answer: ...


def _sentences(text: str) -> list[str]:
    out, start = [], 0
    for i, ch in enumerate(text):
        if ch in ".!?" and (i + 1 == len(text) or text[i + 1] == " "):
            # "St. Ives" and initials are not sentence ends.
            prev = text[start:i].split()[-1:] or [""]
            if len(prev[0]) > 2 or not prev[0][:1].isupper():
                out.append(text[start : i + 1].strip())
                start = i + 1
    if text[start:].strip():
        out.append(text[start:].strip())
    return out


class ExtractiveSynthesizer:
    """Answers with a span from the context, or abstains.

    It abstains when the context covers less than half of the question's
    content words, weighted by their rarity (``idf``): a memory that has never
    heard of the question's subject should say so rather than guess. Otherwise
    it picks the context sentence sharing the most (idf-weighted) words with
    the question, and answers with the first entity-like span of that sentence
    that the question does not already contain (else the sentence).

    Args:
        idf: Rarity of a word in the memory (unknown words should score high).
    """

    def __init__(self, idf: Callable[[str], float]) -> None:
        self.idf = idf

    def answer(self, question: str, context: Context) -> Answer:
        asked = set(content_words(question))
        if not context.items or not asked:
            return Answer(None)
        seen = set(content_words(context.text))
        total = sum(self.idf(w) for w in asked)
        covered = sum(self.idf(w) for w in asked & seen)
        if total and covered / total < ABSTAIN_COVERAGE:
            return Answer(None)
        best, best_score = "", -math.inf
        for item in context.items:
            for sentence in _sentences(item.candidate.text):
                overlap = sum(self.idf(w) for w in asked & set(content_words(sentence)))
                if overlap > best_score:
                    best, best_score = sentence, overlap
        lowered = question.lower()
        for span in entity_spans(best):
            if span.lower() not in lowered:
                return Answer(span, best)
        return Answer(best, best)
