"""Multi-objective evolution of the retrieval genome (DEAP NSGA-II).

Modules, smallest first: :mod:`~mragent.evolution.encoding` (genotype and typed
variation operators), :mod:`~mragent.evolution.trial` (immutable trial records),
:mod:`~mragent.evolution.split`, :mod:`~mragent.evolution.stats` (distribution-free
intervals and the sign test), :mod:`~mragent.evolution.evaluator` (cached fitness) and
:mod:`~mragent.evolution.distributed` (its Dask pool), :mod:`~mragent.evolution.hypervolume`
(exact, moocore), :mod:`~mragent.evolution.study` (the NSGA-II study; the only DEAP user),
:mod:`~mragent.evolution.random_search`, :mod:`~mragent.evolution.optuna_search` (Optuna's
samplers and the export; the only Optuna user), :mod:`~mragent.evolution.latency`
(interleaved re-timing), :mod:`~mragent.evolution.gate` (acceptance gate),
:mod:`~mragent.evolution.compare` (searches at equal budget over seeds),
:mod:`~mragent.evolution.checkpoint`, :mod:`~mragent.evolution.plot`,
:mod:`~mragent.evolution.report`, :mod:`~mragent.evolution.proposer` (optional external
proposer) and :mod:`~mragent.evolution.run` (one ``mragent evolve`` run end to end).

May import :mod:`mragent.core`, :mod:`mragent.memory` and :mod:`mragent.apps`,
never :mod:`mragent.cli`; nothing below it imports it. Importing this package
has no side effects.
"""

from mragent.evolution.gate import GateResult, judge
from mragent.evolution.latency import LatencyCheck
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
