"""A generated memory of any size, for benchmarks (deterministic from a seed).

Entities (companies, people, towns) are made of invented syllables; each
content is a short passage about one entity mentioning two or three others,
so the graph has the same shape as real text: hubs, chains and distractors.
"""

from __future__ import annotations

import random

from mragent.core.corpus import Content, Corpus, Question

_SYLLABLES = (
    "ka",
    "lo",
    "mi",
    "ran",
    "tes",
    "vo",
    "quil",
    "dar",
    "ne",
    "sho",
    "bri",
    "tam",
    "zel",
    "gor",
    "phi",
    "lun",
    "ost",
    "ver",
    "ya",
    "cor",
)
_KINDS = ("Works", "Mills", "Guild", "Press", "Foundry", "Labs")
_VERBS = ("was founded by", "was acquired by", "supplies", "competes with", "was rescued by")


def _name(rng: random.Random, parts: int) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(parts)).capitalize()


def generate(contents: int, seed: int = 0) -> Corpus:
    """A corpus of ``contents`` passages over ~contents/2 entities, with bridge questions."""
    rng = random.Random(seed)
    entities: list[str] = []
    seen: set[str] = set()
    while len(entities) < max(4, contents // 2):
        name = (
            f"{_name(rng, 2)} {_name(rng, 2)}"
            if rng.random() < 0.5
            else f"{_name(rng, 3)} {rng.choice(_KINDS)}"
        )
        if name not in seen:
            seen.add(name)
            entities.append(name)
    towns = [_name(rng, 3) for _ in range(max(4, contents // 20))]
    items = []
    for i in range(contents):
        subject = entities[i % len(entities)]
        others = rng.sample(entities, 2)
        town = rng.choice(towns)
        text = (
            f"{subject} {rng.choice(_VERBS)} {others[0]} in {town} in "
            f"{rng.randint(1800, 2020)}. It later worked with {others[1]}."
        )
        items.append(Content(key=f"g{i}", text=text, title=subject))
    questions = [
        Question(
            id=f"q{i}",
            question=f"Where did {items[i].title} meet its partner?",
            answers=(items[i].text.split(" in ")[1],),
            supporting=(items[i].key,),
        )
        for i in range(0, contents, max(1, contents // 100))
    ]
    return Corpus(items, questions, name=f"synthetic-{contents}-{seed}")
