"""The default synthesiser: an answer span taken from the context, or abstention.

No model is involved. The question's type (a year, a count, or otherwise a
name) decides which spans are candidates; the sentence that best matches the
question (rare words count more, and words match on a short stem so "inventor"
finds "invented") supplies them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from mragent.core.extract import entity_spans
from mragent.core.retrieval.synthesis import Answer, Context
from mragent.core.text import content_words

RANK_BONUS = 0.25  # an earlier (stronger) context item wins a near tie
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_NUMBER_WORDS = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
    "eighty ninety hundred thousand dozen"
).split()
_COUNT = re.compile(r"\b(\d+(?:[.,]\d+)?|" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)


def stem(word: str) -> str:
    """A crude prefix stem: enough to match inflections and derivations."""
    return word[:5]


def _stems(text: str) -> set[str]:
    return {stem(w) for w in content_words(text)}


def sentences(text: str) -> list[str]:
    """Split a passage into sentences ("St. Ives" and initials do not end one)."""
    out, start = [], 0
    for i, ch in enumerate(text):
        if ch in ".!?" and (i + 1 == len(text) or text[i + 1] == " "):
            prev = text[start:i].split()[-1:] or [""]
            if len(prev[0]) > 2 or not prev[0][:1].isupper():
                out.append(text[start : i + 1].strip())
                start = i + 1
    if text[start:].strip():
        out.append(text[start:].strip())
    return out


def answer_kind(question: str) -> str:
    """``year``, ``count`` or ``name``: what sort of span answers the question."""
    q = question.lower()
    if "what year" in q or "which year" in q or q.startswith("when"):
        return "year"
    if "how many" in q or "how much" in q or "how long" in q:
        return "count"
    return "name"


def candidates(sentence: str, kind: str) -> list[str]:
    """Spans of ``sentence`` that could answer a question of ``kind``."""
    if kind == "year":
        return _YEAR.findall(sentence)
    if kind == "count":
        return [m.group(0) for m in _COUNT.finditer(sentence) if not _YEAR.fullmatch(m.group(0))]
    return [span for span in entity_spans(sentence) if not _YEAR.fullmatch(span)]


class ExtractiveSynthesizer:
    """Answers with a span from the context (abstaining only on an empty one).

    Whether to answer at all is decided before it is asked (:func:`uncovered`, or
    a calibrated rule). It ranks sentences by the idf-weighted question stems they share
    (plus a small bonus for stronger context items), and answers with the first
    candidate span of the question's kind that the question does not already
    contain, from the best sentence that has one; else with the best sentence.

    Args:
        idf: Rarity of a word in the memory (unknown words should score high).
    """

    def __init__(self, idf: Callable[[str], float]) -> None:
        self.idf = idf

    def answer(self, question: str, context: Context) -> Answer:
        asked = {stem(w): self.idf(w) for w in content_words(question)}
        if not context.items or not asked:
            return Answer(None)
        scored = []
        for rank, item in enumerate(context.items):
            for sentence in sentences(item.candidate.text):
                # fsum is exact, so the set's hash order cannot move the last bit and a tie.
                overlap = math.fsum(asked.get(s, 0.0) for s in _stems(sentence))
                scored.append((overlap + RANK_BONUS / (1 + rank), sentence))
        scored.sort(key=lambda pair: -pair[0])
        kind = answer_kind(question)
        question_stems = set(asked) | _stems(question)
        for _, sentence in scored:
            for span in candidates(sentence, kind):
                if not _stems(span) <= question_stems or not _stems(span):
                    return Answer(span, sentence)
        return Answer(scored[0][1], scored[0][1])
