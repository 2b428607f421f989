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
# Entities the short names serve: half the ~208,000 they can spell, so drawing them
# seldom collides (a 200,000-content corpus).
SHORT_NAMES_UP_TO = 100_000
_VERBS = ("was founded by", "was acquired by", "supplies", "competes with", "was rescued by")


def _name(rng: random.Random, parts: int) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(parts)).capitalize()


def generate(contents: int, seed: int = 0) -> Corpus:
    """A corpus of ``contents`` passages over ~contents/2 entities, with bridge questions.

    Short names (two syllables twice, or three and a kind) give about 208,000 distinct
    entities; a corpus needing more than :data:`SHORT_NAMES_UP_TO` entities takes a
    syllable more in every name part (towns too, so a town stays in about 20
    passages), which leaves every smaller corpus exactly as it was.
    """
    rng = random.Random(seed)
    wanted = max(4, contents // 2)
    extra = 1 if wanted > SHORT_NAMES_UP_TO else 0
    entities: list[str] = []
    seen: set[str] = set()
    while len(entities) < wanted:
        name = (
            f"{_name(rng, 2 + extra)} {_name(rng, 2 + extra)}"
            if rng.random() < 0.5
            else f"{_name(rng, 3 + extra)} {rng.choice(_KINDS)}"
        )
        if name not in seen:
            seen.add(name)
            entities.append(name)
    towns = [_name(rng, 3 + extra) for _ in range(max(4, contents // 20))]
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
