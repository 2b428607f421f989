"""Deterministic train / held-out split of a corpus's questions."""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Sequence

from mragent.core.corpus import Question
from mragent.core.errors import ConfigError

DEFAULT_SPLIT = "0.3"


def split_questions(
    questions: Sequence[Question], spec: str, seed: int
) -> tuple[list[Question], list[Question]]:
    """Hold questions out of the search.

    Args:
        questions: The corpus's questions.
        spec: A fraction in [0, 1) to hold out (stratified by question kind,
            shuffled by ``seed``), or a comma-separated list of question ids.
        seed: Picks which questions a fraction holds out.

    Returns:
        ``(train, held_out)``, each in corpus order.

    Raises:
        ConfigError: on a malformed spec, unknown ids, or an empty training set.
    """
    spec = spec.strip()
    try:
        fraction = float(spec)
    except ValueError:
        held = _by_ids(questions, spec)
    else:
        held = _by_fraction(questions, fraction, seed)
    train = [q for q in questions if q.id not in held]
    if not train:
        raise ConfigError(f"--split {spec!r} holds out every question; the search needs some")
    return train, [q for q in questions if q.id in held]


def _by_ids(questions: Sequence[Question], spec: str) -> set[str]:
    ids = [part.strip() for part in spec.split(",") if part.strip()]
    if not ids:
        raise ConfigError("--split: give a fraction such as 0.3 or a list of question ids")
    known = {q.id for q in questions}
    unknown = [qid for qid in ids if qid not in known]
    if unknown:
        raise ConfigError(f"--split: unknown question ids: {', '.join(unknown[:5])}")
    return set(ids)


def _by_fraction(questions: Sequence[Question], fraction: float, seed: int) -> set[str]:
    if not 0.0 <= fraction < 1.0 or math.isnan(fraction):
        raise ConfigError(f"--split fraction must be in [0, 1), got {fraction}")
    if fraction == 0.0 or len(questions) < 2:
        return set()
    rng = random.Random(f"mragent-split:{seed}")  # its own stream, not the search's
    by_kind: dict[str, list[str]] = defaultdict(list)
    for q in questions:
        by_kind[q.kind].append(q.id)
    total = min(len(questions) - 1, max(1, int(fraction * len(questions) + 0.5)))
    # Largest-remainder quotas per kind, so the held-out mix matches the corpus.
    exact = {kind: fraction * len(ids) for kind, ids in by_kind.items()}
    quota = {kind: int(value) for kind, value in exact.items()}
    by_remainder = sorted(exact, key=lambda kind: (-(exact[kind] - quota[kind]), kind))
    for kind in by_remainder[: max(0, total - sum(quota.values()))]:
        quota[kind] += 1
    held: set[str] = set()
    for kind in sorted(by_kind):
        ids = sorted(by_kind[kind])
        rng.shuffle(ids)
        held.update(ids[: quota[kind]])
    return held
