"""The facts the negative evaluation writes, and the questions aimed at each.

Fixed texts, so the evaluation is deterministic: one fact per category
(forgotten, rejected, superseded with its correction, out of scope, pending)
and live distractors beside them (see :mod:`mragent.apps.negative.run`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Fact:
    """A fact written to the scratch namespace and the questions aimed at it.

    Attributes:
        name: Its role in the evaluation.
        text: The memory's text.
        question: A question whose answer is in ``text`` (and not in the question).
        answer: The distinctive text looked for on every surface.
        mention: A question naming the first word of ``answer`` only.
    """

    name: str
    text: str
    question: str
    answer: str
    mention: str

    def probes(self) -> tuple[tuple[str, str], ...]:
        """(question, text looked for): the aimed question, and the mention, which
        looks for the rest of the answer (a cue or passage completing a name the
        reader gave is as much a leak as the answer to a question)."""
        _, _, rest = self.answer.partition(" ")
        return (self.question, self.answer), (self.mention, rest)


FORGOTTEN = Fact(
    "forgotten",
    "The Orion archive is guarded by Tomas Brandt.",
    "Who guards the Orion archive?",
    "Tomas Brandt",
    "Who is Tomas?",
)
REJECTED = Fact(
    "rejected",
    "The captain of the Vega ferry is Nadia Okafor.",
    "Who is the captain of the Vega ferry?",
    "Nadia Okafor",
    "Who is Nadia?",
)
OLD_VERSION = Fact(
    "superseded",
    "The Lyra observatory is directed by Mara Voss.",
    "Who directs the Lyra observatory?",
    "Mara Voss",
    "Who is Mara?",
)
NEW_VERSION = Fact(
    "correction",
    "The Lyra observatory is directed by Ilse Kruger.",
    OLD_VERSION.question,
    "Ilse Kruger",
    "Who is Ilse?",
)
OUT_OF_SCOPE = Fact(
    "out_of_scope",
    "The Draco mine is managed by Pavel Lindqvist.",
    "Who manages the Draco mine?",
    "Pavel Lindqvist",
    "Who is Pavel?",
)
PENDING = Fact(
    "pending",
    "The Cygnus bakery is owned by Rosa Velasquez.",
    "Who owns the Cygnus bakery?",
    "Rosa Velasquez",
    "Who is Rosa?",
)
# Live, accepted neighbours: the views are never empty, and every question has
# something else to find.
DISTRACTORS = (
    "The Perseus bridge was built by Anton Weiss.",
    "The Andromeda library is kept by Lena Holm.",
    "The Hydra lighthouse is tended by Omar Said.",
    "The Pegasus stables are run by Greta Falk.",
)
