"""Multi-objective evolution of the retrieval genome (DEAP NSGA-II).

Modules, smallest first: :mod:`~evolution.encoding` (genotype and typed
variation operators), :mod:`~evolution.trial` (immutable trial records),
:mod:`~evolution.split`, :mod:`~evolution.evaluator` (cached, parallel
fitness), :mod:`~evolution.study` (the NSGA-II study; the only DEAP user),
:mod:`~evolution.random_search`, :mod:`~evolution.gate` (acceptance gate and
latency re-timing), :mod:`~evolution.checkpoint`, :mod:`~evolution.compare`
(hypervolume), :mod:`~evolution.plot`, :mod:`~evolution.report`,
:mod:`~evolution.proposer` (optional external proposer) and
:mod:`~evolution.run` (one ``mragent evolve`` run end to end).

Importing this package has no side effects.
"""

from evolution.gate import GateResult, LatencyCheck, judge
from evolution.proposer import MutationProposer, ProposalContext
from evolution.run import EvolveOptions, EvolveRun, run_evolve
from evolution.study import Study
from evolution.trial import Evaluation, Trial

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
