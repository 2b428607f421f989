"""An optional, removable hook for an external genome proposer.

Nothing in mragent needs a proposer: the study runs without one by default. One
that is given (for example an LLM reading failure traces and suggesting
genomes) returns plain mappings; the study validates each with
:func:`mragent.core.genome.make_genome`, drops and counts the invalid ones, and
injects the rest as extra offspring of the generation.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from mragent.evolution.trial import Trial


@dataclass(frozen=True)
class ProposalContext:
    """What a proposer is shown each generation.

    Attributes:
        generation: The generation being bred.
        population: The current parents' trials.
        best: The archive's highest-scoring trial; ``best.evaluation.failures``
            lists ``(question id, produced answer)`` for each question it got wrong.
        count: How many genomes the study will take.
        rng: A generator seeded from the study's seed and the generation, for
            proposers that sample (keeps a deterministic proposer reproducible).
        archive: Every trial so far, in evaluation order (screened-only ones
            included: ``evaluation.full`` tells them apart).
    """

    generation: int
    population: tuple[Trial, ...]
    best: Trial
    count: int
    rng: random.Random
    archive: tuple[Trial, ...] = ()


@runtime_checkable
class MutationProposer(Protocol):
    """Suggests genomes from the state of a search."""

    def propose(self, context: ProposalContext) -> Iterable[Mapping[str, Any]]:
        """Return up to ``context.count`` genome mappings (gene name -> value).

        Invalid mappings are allowed: they are counted as rejected, not raised.
        """
        ...
