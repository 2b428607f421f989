"""Judging answers honestly: SQuAD normalisation, aliases, abstention, recall@k."""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = set(string.punctuation)


def normalise(text: str) -> str:
    """SQuAD normalisation: lowercase, drop punctuation and articles, squash spaces."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def answer_in_context(answers: Sequence[str], context: str) -> bool:
    """Whether any gold answer (or alias) appears, as whole words, in the context."""
    haystack = f" {normalise(context)} "
    return any(f" {normalise(a)} " in haystack for a in answers if normalise(a))


def exact_match(prediction: str | None, answers: Sequence[str]) -> float:
    """1.0 if the normalised prediction equals a normalised gold answer."""
    if prediction is None:
        return 0.0
    return float(any(normalise(prediction) == normalise(a) for a in answers))


def f1(prediction: str | None, answers: Sequence[str]) -> float:
    """Best token F1 of the prediction against the gold answers."""
    if prediction is None:
        return 0.0
    best = 0.0
    pred = normalise(prediction).split()
    for answer in answers:
        gold = normalise(answer).split()
        common = Counter(pred) & Counter(gold)
        same = sum(common.values())
        if same:
            precision, recall = same / len(pred), same / len(gold)
            best = max(best, 2 * precision * recall / (precision + recall))
    return best


def is_correct(answerable: bool, answers: Sequence[str], context: str, abstained: bool) -> bool:
    """Answer-in-context accuracy; an unanswerable question is right only by abstaining.

    The extracted answer is judged separately (:func:`exact_match`, :func:`f1`).
    """
    if not answerable:
        return abstained
    return answer_in_context(answers, context)


def recall_at_k(retrieved: Sequence[str], gold: Sequence[str], k: int) -> float:
    """Share of gold items among the first ``k`` retrieved."""
    if not gold:
        return 0.0
    top = set(retrieved[:k])
    return sum(1 for g in gold if g in top) / len(gold)
