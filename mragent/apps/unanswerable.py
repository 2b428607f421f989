"""Unanswerable questions built the way MuSiQue built its own: a supporting passage gone.

For a seeded sample of answerable questions, one supporting passage of each is
chosen (seeded) and removed: the variant asks the same question of a memory
that lacks that passage, and the right outcome is to abstain.

Mechanism: ONE extra namespace, the corpus ingested without every sampled
question's removed passage. It is a real namespace, so the removed passages are
in no retrieval path: no Content node, and no Tag or Cue that only they wrote
(the graph, the cue and passage indexes and the idf are those of the smaller
corpus). One namespace serves every variant because the sample is drawn so
that a removed passage supports no other sampled question: for variant ``q``,
that memory is "the memory without ``q``'s passage" and without a few dozen
passages that support none of ``q``'s facts. A namespace per variant would be
exact to the passage, at one ingest of the whole corpus per variant; the
distractor pool barely changes (dozens of passages out of thousands), and the
passages carrying ``q``'s other facts all stay, so the shortcut keeps the
question as hard as MuSiQue's own unanswerable kind. Contents are keyed by a
hash of title and text, so a passage repeated in the corpus is one content,
and removing it removes every copy.

The sample is drawn half from each side of the train/held-out split, so the
held-out figures rest on as many unanswerable questions as the fit.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from mragent.core.corpus import Corpus, Question

DEFAULT_SAMPLE = 40


@dataclass(frozen=True)
class Variant:
    """An answerable question asked of the memory without one of its supporting passages.

    Attributes:
        question: The variant, ``answerable=False``, its id the original's plus ``~u``.
        original: The answerable question it was built from.
        removed: The content key of the supporting passage removed.
    """

    question: Question
    original: Question
    removed: str


def sample_variants(
    train: Sequence[Question], held_out: Sequence[Question], n: int, seed: int
) -> list[Variant]:
    """Draw up to ``n`` variants, half from each side of the split (seeded).

    Only answerable questions with supporting passages qualify; a question whose
    chosen passage supports an already drawn question, or whose supporting passages
    include one already removed, is skipped (see the module docstring).
    """
    rng = random.Random(f"mragent-unanswerable:{seed}")
    sides = [_eligible(held_out), _eligible(train)]
    for side in sides:
        rng.shuffle(side)
    # Half each; a side short of questions leaves its share to the other.
    first = min((n + 1) // 2, len(sides[0]))
    second = min(n - first, len(sides[1]))
    quota = [min(n - second, len(sides[0])), second]
    supported: set[str] = set()  # every supporting key of the questions drawn
    removed: set[str] = set()
    variants: list[Variant] = []
    for side, want in zip(sides, quota, strict=True):
        drawn = 0
        for q in side:
            if drawn == want:
                break
            key = rng.choice(sorted(q.supporting))
            if key in supported or removed & set(q.supporting):
                continue
            supported.update(q.supporting)
            removed.add(key)
            variant = replace(q, id=f"{q.id}~u", answerable=False)
            variants.append(Variant(variant, q, key))
            drawn += 1
    return sorted(variants, key=lambda v: v.question.id)


def _eligible(questions: Sequence[Question]) -> list[Question]:
    return sorted((q for q in questions if q.answerable and q.supporting), key=lambda q: q.id)


def without_removed(corpus: Corpus, variants: Sequence[Variant]) -> Corpus:
    """The corpus without every variant's removed passage (its questions: the variants)."""
    gone = {v.removed for v in variants}
    return Corpus(
        contents=[c for c in corpus.contents if c.key not in gone],
        questions=[v.question for v in variants],
        links=corpus.links,
        name=f"{corpus.name} without {len(gone)} supporting passages",
    )


def variant_namespace(ns: str, variants: Sequence[Variant]) -> str:
    """A namespace named for what it lacks, so a rerun reuses the same one."""
    digest = hashlib.sha256("\n".join(sorted(v.removed for v in variants)).encode())
    return f"{ns[:50].rstrip('-._')}-u{digest.hexdigest()[:10]}"
