"""Multi-fidelity inside the search: screen a genome on a subset, race it against the front.

A genome of the search is first scored on a seeded subset of the training
questions (the *screening* set, :meth:`Racing.subset`). It goes on to the full
set only if it could still enter the Pareto front (:func:`could_enter_front`):
no genome already scored in full leads it on the screening questions by
:attr:`Racing.margin` or more in every quality objective while costing no more
in any cost objective. Those figures of the full-fidelity genomes come from
their own full runs (the screening questions are part of the full set), so the
comparison is on the very same questions and costs no extra evaluation.

A screened-only genome stays in the archive with its subset figures and
``fidelity`` below 1; the front, the hypervolume and the gate read full-fidelity
figures only, and selection ranks a screened-only genome after every
full-fidelity one. The subset is drawn from the run's seed and every
evaluation is deterministic, so the same seed screens and promotes the same
genomes on one process and on a Dask cluster alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from mragent.core.corpus import Question
from mragent.core.genome import Genome
from mragent.evolution.split import split_questions
from mragent.evolution.trial import Evaluation

DEFAULT_SHARE = 1 / 3
"""Share of the training questions a genome is screened on."""

DEFAULT_MARGIN = 0.05
"""Quality lead (a share: 0.05 is 5 points) by which an incumbent rules a genome out."""


class ScreeningEvaluate(Protocol):
    """An evaluator that can score genomes on the screening subset and in full."""

    def __call__(self, genomes: Sequence[Genome]) -> list[Evaluation]: ...

    def screen(self, genomes: Sequence[Genome]) -> list[Evaluation]: ...

    def screened(self, genome: Genome) -> Evaluation: ...


@dataclass(frozen=True)
class Racing:
    """The screening rule.

    Attributes:
        share: Share of the training questions in the screening set, in (0, 1).
        margin: Quality lead, in every quality objective, by which a
            full-fidelity genome that costs no more rules a screened one out.

    Raises:
        ValueError: on a share outside (0, 1) or a negative margin.
    """

    share: float = DEFAULT_SHARE
    margin: float = DEFAULT_MARGIN

    def __post_init__(self) -> None:
        if not 0.0 < self.share < 1.0:
            raise ValueError(f"the screening share must lie in (0, 1), got {self.share}")
        if self.margin < 0.0:
            raise ValueError(f"the racing margin must be >= 0, got {self.margin}")

    def subset(self, questions: Sequence[Question], seed: int) -> tuple[int, ...]:
        """Indices of the screening questions: a seeded share, stratified by kind."""
        # split_questions holds a fraction out; the screening set is what it keeps.
        kept, _ = split_questions(questions, f"{1.0 - self.share:.6f}", seed)
        chosen = {q.id for q in kept}
        return tuple(i for i, q in enumerate(questions) if q.id in chosen)


def could_enter_front(
    candidate: Evaluation, incumbents: Sequence[Evaluation], margin: float
) -> bool:
    """Whether no incumbent leads ``candidate`` by ``margin`` in quality at no more cost.

    Both sides are figures on the same screening questions. An incumbent rules
    the candidate out when each of its quality objectives is at least
    ``margin`` higher and none of its cost objectives is higher. The figures are
    compared as measured: the false-abstention constraint is judged at full
    fidelity only (a share of a few screening questions is too coarse to rule on).
    """
    if candidate.timed_out:
        return False
    quality = len(candidate.objectives.quality)
    theirs_all = candidate.measured
    for incumbent in incumbents:
        mine_all = incumbent.measured
        ahead = all(
            mine - margin >= theirs
            for mine, theirs in zip(mine_all[:quality], theirs_all[:quality], strict=True)
        )
        cheaper = all(
            mine <= theirs
            for mine, theirs in zip(mine_all[quality:], theirs_all[quality:], strict=True)
        )
        if ahead and cheaper:
            return False
    return True
