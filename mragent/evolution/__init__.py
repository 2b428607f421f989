"""Multi-objective evolution of the retrieval genome (DEAP NSGA-II).

Modules, smallest first: :mod:`~mragent.evolution.encoding` (genotype and typed
variation operators), :mod:`~mragent.evolution.trial` (immutable trial records),
:mod:`~mragent.evolution.split`, :mod:`~mragent.evolution.evaluator` (cached, parallel
fitness), :mod:`~mragent.evolution.study` (the NSGA-II study; the only DEAP user),
:mod:`~mragent.evolution.random_search`, :mod:`~mragent.evolution.gate` (acceptance gate and
latency re-timing), :mod:`~mragent.evolution.checkpoint`, :mod:`~mragent.evolution.compare`
(hypervolume), :mod:`~mragent.evolution.plot`, :mod:`~mragent.evolution.report`,
:mod:`~mragent.evolution.proposer` (optional external proposer) and
:mod:`~mragent.evolution.run` (one ``mragent evolve`` run end to end).

May import :mod:`mragent.core`, :mod:`mragent.memory` and :mod:`mragent.apps`,
never :mod:`mragent.cli`; nothing below it imports it. Importing this package
has no side effects.
"""

from mragent.evolution.gate import GateResult, LatencyCheck, judge
from mragent.evolution.proposer import MutationProposer, ProposalContext
from mragent.evolution.run import EvolveOptions, EvolveRun, run_evolve
from mragent.evolution.study import Study
from mragent.evolution.trial import Evaluation, Trial

__all__ = [
    "Evaluation",
    "EvolveOptions",
    "EvolveRun",
    "GateResult",
    "LatencyCheck",
    "MutationProposer",
    "ProposalContext",
    "Study",
    "Trial",
    "judge",
    "run_evolve",
]
