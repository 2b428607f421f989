"""Stage 3b: context assembly (``promptStrategy``) and answer synthesis.

Strategies decide what is handed to synthesis:

* ``evidence-first``: the ``maxContent`` best items, strongest first;
* ``terse``: the fewest items that carry the answer: the top item, and the
  next ones only while they are nearly as strong (>= ``TERSE_RATIO`` of the
  top), at most ``TERSE_MAX``;
* ``prune-explicit``: items weaker than ``PRUNE_RATIO`` of the top are dropped
  and named in the context as dropped, so a reader (or an LLM) knows what was
  left out.

The default synthesiser (:mod:`mragent.core.retrieval.extractive`) answers with a
span of the context; any object with the :class:`Synthesizer` shape (an LLM
call, say) can replace it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from mragent.core.genome import PromptStrategy
from mragent.core.retrieval.rerank import Ranked
from mragent.core.text import count_tokens

TERSE_RATIO = 0.75
TERSE_MAX = 3
PRUNE_RATIO = 0.35


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
