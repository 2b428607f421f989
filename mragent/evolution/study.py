"""NSGA-II or NSGA-III over the genome with DEAP: the only module that imports DEAP.

Selection is DEAP's ``tools.selNSGA2`` (non-dominated sorting, then crowding
distance), or ``tools.selNSGA3`` (non-dominated sorting, then niching around
reference points: crowding loses its pull with four or five objectives, where
most of a small population is mutually non-dominated) over an
:class:`~mragent.evolution.objectives.Objectives` set: accuracy (max), or
support recall@5 and accuracy (max); then cost = deterministic work (min),
context tokens (min) and hops (min). Genomes outside the hypervolume's
reference box (zero quality, or a cost at or beyond
:data:`~mragent.evolution.hypervolume.REFERENCE_COST` x the baseline's) are
infeasible, as in Deb's constrained domination: every feasible genome is
preferred to them, and among themselves the one nearer the box wins. Without
that rule, crowding under four or five objectives keeps the most expensive
extremes in the population (they are non-dominated, with infinite crowding
distance), and their offspring land outside the box, where they add nothing:
over 5 seeds on the reference corpus (16 x 6) about a third of NSGA-II's
evaluations fell there, against 4-8% of random search's. Parents are drawn by
a binary tournament on feasibility, then Pareto dominance, then crowding
distance, then the scalar score policy; variation is the typed operators of
:mod:`mragent.evolution.encoding`. Every random draw comes from
one ``random.Random(seed)`` owned by the study, so a run is reproducible and
its state can be checkpointed and resumed exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from mragent.core.errors import ConfigError
from mragent.core.genome import CORE_GENES, GeneSpec, Genome, make_genome
from mragent.evolution.encoding import (
    clamp,
    clamp_genome,
    crossover,
    decode,
    encode,
    mutate,
    random_genotype,
)
from mragent.evolution.fidelity import Racing, could_enter_front
from mragent.evolution.hypervolume import hypervolume, overshoot
from mragent.evolution.objectives import ACCURACY, RECALL_METRIC, Objectives
from mragent.evolution.proposer import MutationProposer, ProposalContext
from mragent.evolution.trial import Evaluation, Trial, pareto_front

BatchEvaluate = Callable[[Sequence[Genome]], list[Evaluation]]

NSGA2, NSGA3 = "nsga2", "nsga3"
SELECTIONS = (NSGA2, NSGA3)
"""The selection operators a study can run."""


def reference_points(objectives: int, population: int) -> Any:
    """NSGA-III's reference points: the densest uniform simplex lattice no larger
    than the population (at least two divisions), as DEAP builds it."""
    from math import comb

    from deap import tools

    divisions = 2  # a lattice of p divisions on m objectives has C(m + p - 1, p) points
    while comb(objectives + divisions, divisions + 1) <= population:
        divisions += 1
    return tools.uniform_reference_points(objectives, divisions)


_FITNESS, _INDIVIDUAL = "MragentFitness", "MragentIndividual"


def _individual_class(objectives: Objectives) -> Any:
    """DEAP's creator classes for one objective set, made once per process."""
    # DEAP (with numpy and moocore) is imported where a study runs, not with the
    # package, so commands that never search do not pay for it.
    from deap import base, creator

    # The accuracy set keeps the original class names; others get a suffix.
    suffix = "" if objectives is ACCURACY else objectives.name.title().replace("+", "")
    fitness, individual = _FITNESS + suffix, _INDIVIDUAL + suffix
    if not hasattr(creator, fitness):
        creator.create(fitness, base.Fitness, weights=objectives.weights)
    if not hasattr(creator, individual):
        creator.create(individual, list, fitness=getattr(creator, fitness))
    return getattr(creator, individual)


class Study:
    """A reproducible NSGA-II search with an archive of every evaluated genome.

    Args:
        evaluate: Evaluates a batch of genomes (results in input order).
        population: Individuals kept per generation (>= 4).
        generations: Generations after the initial population (>= 0).
        seed: Seeds the study's own ``random.Random``.
        baseline: Evaluated first; its evaluation is the score policy's base.
        seeds: Genomes placed in the initial population (the rest is random).
        crossover_prob: Probability a parent pair is recombined.
        proposer: Optional external proposer; its genomes join the offspring.
        proposals: How many genomes to ask the proposer for per generation.
        objectives: The objective set the evaluations follow.
        genes: Gene ranges the search stays in (default: the core set's); seeds
            and offspring are clamped into them, the baseline is kept as given.
        on_trial: Called with each new trial as it enters the archive (its
            number is the one every report uses).
        selection: ``nsga2`` (non-dominated sorting, crowding distance) or
            ``nsga3`` (non-dominated sorting, then DEAP's reference-point niching
            on a simplex of :func:`reference_points`), for four and five objectives.
        racing: Screen each new genome (other than the baseline and the preset
            seeds) on the evaluator's screening subset first and run it in full
            only if it could still enter the front
            (:mod:`mragent.evolution.fidelity`); ``evaluate`` must then offer
            ``screen`` and ``screened``.
        offspring: Children DEAP's variation breeds per generation (default: the
            population), beside the proposer's genomes.

    Raises:
        ValueError: when an argument is out of range.
    """

    def __init__(
        self,
        evaluate: BatchEvaluate,
        *,
        population: int = 16,
        generations: int = 4,
        seed: int = 0,
        baseline: Genome | None = None,
        seeds: Iterable[Genome] = (),
        crossover_prob: float = 0.9,
        proposer: MutationProposer | None = None,
        proposals: int = 2,
        objectives: Objectives = ACCURACY,
        genes: tuple[GeneSpec, ...] = CORE_GENES,
        on_trial: Callable[[Trial], None] | None = None,
        selection: str = NSGA2,
        racing: Racing | None = None,
        offspring: int | None = None,
    ) -> None:
        if population < 4:
            raise ValueError(f"population must be >= 4, got {population}")
        if generations < 0:
            raise ValueError(f"generations must be >= 0, got {generations}")
        if not 0.0 <= crossover_prob <= 1.0:
            raise ValueError(f"crossover_prob must be in [0, 1], got {crossover_prob}")
        if proposals < 0:
            raise ValueError(f"proposals must be >= 0, got {proposals}")
        if offspring is not None and offspring < 0:
            raise ValueError(f"offspring must be >= 0, got {offspring}")
        if selection not in SELECTIONS:
            raise ConfigError(f"unknown selection {selection!r} (one of {', '.join(SELECTIONS)})")
        if racing is not None and not hasattr(evaluate, "screen"):
            raise ValueError("racing needs an evaluator with a screening subset")
        self.evaluate = evaluate
        self.population_size, self.generations, self.seed = population, generations, seed
        self.baseline = baseline or Genome()
        self.genes = genes
        clamped = (clamp_genome(g, genes) for g in seeds)
        self.seeds = [g for g in dict.fromkeys(clamped) if g != self.baseline]
        self.crossover_prob = crossover_prob
        self.proposer, self.proposals = proposer, proposals
        self.rng = random.Random(seed)
        self.generation = -1  # last completed generation; -1: nothing run yet
        self.population: list[Genome] = []
        from deap import tools

        self.logbook = tools.Logbook()
        self._archive: dict[Genome, Trial] = {}
        self.objectives = objectives
        self.on_trial = on_trial
        self.selection, self.racing = selection, racing
        self.offspring = population if offspring is None else offspring
        self._cls = _individual_class(objectives)
        self._references = reference_points(len(objectives.names), population)

    @property
    def trials(self) -> list[Trial]:
        """Every evaluated genome, in evaluation order."""
        return list(self._archive.values())

    @property
    def baseline_trial(self) -> Trial:
        """The baseline's trial (number 0)."""
        return self._archive[self.baseline]

    @property
    def full_trials(self) -> list[Trial]:
        """The trials scored on the whole question set, in evaluation order."""
        return [t for t in self._archive.values() if t.evaluation.fidelity >= 1.0]

    @property
    def pareto_front(self) -> list[Trial]:
        """Non-dominated full-fidelity trials of the whole archive."""
        return pareto_front(self.trials)

    @property
    def best_trial(self) -> Trial:
        """Highest score among the full-fidelity trials (ties: earliest)."""
        return max(self.full_trials, key=lambda t: (t.score, -t.number))

    @property
    def done(self) -> bool:
        """Whether every generation has run."""
        return self.generation >= self.generations

    def optimize(self, on_generation: Callable[[Study], None] | None = None) -> None:
        """Run the remaining generations (all of them on a fresh study).

        Args:
            on_generation: Called after each completed generation, including the
                initial one; the place to checkpoint and report progress.
        """
        if self.generation < 0:
            self._initial()
            if on_generation:
                on_generation(self)
        while not self.done:
            self._step()
            if on_generation:
                on_generation(self)

    def _record(self, genomes: Sequence[Genome], generation: int, origins: Sequence[str]) -> None:
        new = [g for g in dict.fromkeys(genomes) if g not in self._archive]
        origin_of = dict(zip(genomes, origins, strict=True))
        if self.baseline in self._archive:
            base = self._archive[self.baseline].evaluation.score_base()
        else:
            base = None
        for genome, evaluation in zip(new, self._evaluations(new, origin_of), strict=True):
            if base is None:  # the first genome recorded is the baseline
                base = evaluation.score_base()
            trial = Trial(
                len(self._archive),
                generation,
                origin_of[genome],
                genome,
                evaluation,
                evaluation.score(base),
            )
            self._archive[genome] = trial
            if self.on_trial:
                self.on_trial(trial)

    def _evaluations(self, genomes: list[Genome], origin_of: dict[Genome, str]) -> list[Evaluation]:
        """Full evaluations, or with racing: screened first, in full if still in the race."""
        if self.racing is None or self.baseline not in self._archive or not genomes:
            return self.evaluate(genomes)
        evaluate: Any = self.evaluate
        screened = evaluate.screen(genomes)
        # Only a front member inside the constraint may rule a candidate out: with none
        # feasible yet, every genome ties on the front, and an infeasible one's figures
        # would outrun every candidate that could be.
        front = [t for t in self.pareto_front if t.evaluation.feasible]
        incumbents = [evaluate.screened(t.genome) for t in front]
        promoted = [
            genome
            for genome, evaluation in zip(genomes, screened, strict=True)
            if origin_of[genome] in ("baseline", "seed")
            or could_enter_front(evaluation, incumbents, self.racing.margin)
        ]
        full = dict(zip(promoted, self.evaluate(promoted), strict=True))
        return [full.get(g, e) for g, e in zip(genomes, screened, strict=True)]

    def _initial(self) -> None:
        self._record([self.baseline], 0, ["baseline"])
        chosen = [self.baseline, *self.seeds][: self.population_size]
        origins = ["baseline"] + ["seed"] * (len(chosen) - 1)
        attempts = 0
        while len(chosen) < self.population_size and attempts < 100 * self.population_size:
            attempts += 1
            genome = decode(random_genotype(self.rng, self.genes), self.genes)
            if genome not in chosen:
                chosen.append(genome)
                origins.append("random")
        self._record(chosen, 0, origins)
        self.population = self._select(chosen, self.population_size)
        self.generation = 0
        self._log(len(chosen), 0, 0)

    def _individuals(self, genomes: Sequence[Genome]) -> list[Any]:
        individuals = []
        for genome in genomes:
            ind = self._cls(encode(genome, self.genes))
            ind.fitness.values = self._archive[genome].values
            individuals.append(ind)
        return individuals

    def _overshoot(self, genome: Genome) -> float:
        """How far a genome lies beyond the hypervolume's reference box (< 0: inside;
        infinite for a screened-only genome, ranked after every full-fidelity one)."""
        return overshoot(self._archive[genome], self.baseline_trial.evaluation)

    def _infeasibility(self, genome: Genome) -> float:
        """-1 for a genome inside the reference box, else its overshoot (>= 0)."""
        over = self._overshoot(genome)
        return -1.0 if over < 0 else over

    def _select(self, genomes: Sequence[Genome], k: int) -> list[Genome]:
        """NSGA-II over the feasible genomes; the infeasible fill what is left, nearest first."""
        from deap import tools

        feasible = [g for g in genomes if self._overshoot(g) < 0]
        individuals, count = self._individuals(feasible), min(k, len(feasible))
        if not count:  # nothing inside the box yet: the nearest fill every place
            chosen = []
        elif self.selection == NSGA3:
            chosen = self._niched(individuals, count)
        else:
            chosen = tools.selNSGA2(individuals, count)
        picked = [decode(ind, self.genes) for ind in chosen]
        rest = sorted(
            (g for g in genomes if self._overshoot(g) >= 0),
            key=lambda g: (self._overshoot(g), self._archive[g].number),
        )
        return picked + rest[: k - len(picked)]

    def _niched(self, individuals: list[Any], k: int) -> list[Any]:
        """DEAP's NSGA-III selection, its numpy draws seeded from the study's own stream."""
        import numpy as np
        from deap import tools

        # selNSGA3 shuffles niches with numpy's global generator: seeding it from the
        # study's rng (and restoring it after) keeps a run reproducible and resumable.
        state = np.random.get_state()
        np.random.seed(self.rng.getrandbits(32))
        try:
            return list(tools.selNSGA3(individuals, k, self._references))
        finally:
            np.random.set_state(state)

    def _tournament(self, parents: list[Any]) -> list[Any]:
        """Binary tournament: dominance, then crowding distance, then score, then a coin."""

        def better(a: Any, b: Any) -> Any:
            over_a, over_b = (self._infeasibility(decode(x, self.genes)) for x in (a, b))
            if over_a != over_b:  # feasible first, then the nearer to the box
                return a if over_a < over_b else b
            if a.fitness.dominates(b.fitness):
                return a
            if b.fitness.dominates(a.fitness):
                return b
            crowd_a, crowd_b = (getattr(x.fitness, "crowding_dist", 0.0) for x in (a, b))
            if crowd_a != crowd_b:  # NSGA-III sets no crowding: equal, so the score decides
                return a if crowd_a > crowd_b else b
            sa, sb = (self._archive[decode(x, self.genes)].score for x in (a, b))
            if sa != sb:
                return a if sa > sb else b
            return a if self.rng.random() < 0.5 else b

        return [better(*self.rng.sample(parents, 2)) for _ in range(self.offspring)]

    def _step(self) -> None:
        generation = self.generation + 1
        # Crowding distances are recomputed on the current population alone, so a
        # study restored from a checkpoint continues exactly like an unbroken run.
        from deap import tools

        parents = self._individuals(self.population)
        feasible = []
        for genome, parent in zip(self.population, parents, strict=True):
            if self._overshoot(genome) < 0:
                feasible.append(parent)
            else:  # ranked by feasibility before crowding is read
                parent.fitness.crowding_dist = 0.0
        if self.selection == NSGA2:
            tools.selNSGA2(feasible, len(feasible))  # crowding among the feasible only
        offspring = [list(ind) for ind in self._tournament(parents)]
        for i in range(0, len(offspring) - 1, 2):
            if self.rng.random() < self.crossover_prob:
                crossover(offspring[i], offspring[i + 1], self.rng, genes=self.genes)
        children = [
            decode(clamp(mutate(child, self.rng, genes=self.genes), self.genes), self.genes)
            for child in offspring
        ]
        origins = ["offspring"] * len(children)
        proposed, rejected = self._proposed(generation)
        children += proposed
        origins += ["proposer"] * len(proposed)
        before = len(self._archive)
        self._record(children, generation, origins)
        pool = list(dict.fromkeys(self.population + children))  # a clone adds no diversity
        self.population = self._select(pool, min(self.population_size, len(pool)))
        self.generation = generation
        self._log(len(self._archive) - before, len(proposed), rejected)

    def _proposed(self, generation: int) -> tuple[list[Genome], int]:
        if self.proposer is None or self.proposals == 0:
            return [], 0
        context = ProposalContext(
            generation=generation,
            population=tuple(self._archive[g] for g in self.population),
            best=self.best_trial,
            count=self.proposals,
            rng=random.Random(self.seed * 1_000_003 + generation),
            archive=tuple(self.trials),
        )
        accepted: list[Genome] = []
        rejected = 0
        for values in list(self.proposer.propose(context))[: self.proposals]:
            try:
                accepted.append(make_genome(dict(values)))
            except (ConfigError, TypeError, ValueError):  # counted, never fatal
                rejected += 1
        return accepted, rejected

    def _log(self, evaluations: int, proposed: int, rejected: int) -> None:
        members = [self._archive[g] for g in self.population]
        best = max(members, key=lambda t: (t.score, -t.number))
        self.logbook.record(
            gen=self.generation,
            evals=evaluations,
            archive=len(self._archive),
            front=len(self.pareto_front),
            best_score=best.score,
            best_accuracy=max(t.evaluation.accuracy for t in members),
            min_cost=min(t.evaluation.work for t in members),
            min_tokens=min(t.evaluation.tokens for t in members),
            min_hops=min(t.evaluation.hops for t in members),
            best_so_far=self.best_trial.score,
            screened_only=sum(not t.evaluation.full for t in self.trials),
            hypervolume=hypervolume(self.trials, self.baseline_trial.evaluation),
            proposed=proposed,
            rejected=rejected,
            **self._recall_log(members),
        )

    def _recall_log(self, members: Sequence[Trial]) -> dict[str, float]:
        if RECALL_METRIC not in self.objectives.names:
            return {}
        return {"best_recall": max(t.evaluation.metric(RECALL_METRIC) for t in members)}

    def state(self) -> dict[str, Any]:
        """Everything needed to continue this study exactly (JSON-able)."""
        version, internal, gauss = self.rng.getstate()
        return {
            "generation": self.generation,
            "population": [g.to_json_dict() for g in self.population],
            "archive": [t.to_dict() for t in self.trials],
            "rng_state": [version, list(internal), gauss],
            "logbook": [dict(entry) for entry in self.logbook],
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Continue from :meth:`state` output.

        Raises:
            KeyError, TypeError, ValueError, ConfigError: when the state is malformed.
        """
        trials = [Trial.from_dict(item) for item in state["archive"]]
        if not trials or trials[0].genome != self.baseline:
            raise ValueError("the archive does not start with this study's baseline")
        population = [make_genome(item) for item in state["population"]]
        archive = {t.genome: t for t in trials}
        if any(g not in archive for g in population):
            raise ValueError("a population member is missing from the archive")
        version, internal, gauss = state["rng_state"]
        rng = random.Random()
        rng.setstate((int(version), tuple(int(x) for x in internal), gauss))
        from deap import tools

        logbook = tools.Logbook()
        for entry in state["logbook"]:
            logbook.record(**entry)
        generation = _checked_generation(state["generation"], state["logbook"], trials)
        self._archive, self.population = archive, population
        self.generation, self.rng, self.logbook = generation, rng, logbook


def _checked_generation(generation: Any, logbook: list[Any], trials: list[Trial]) -> int:
    """The checkpoint's generation, if its logbook and archive agree with it.

    Raises:
        ValueError: for an edited generation (the logbook has one entry per
            generation, the archive's newest trial was made in the last one).
    """
    if type(generation) is not int or generation < 0:
        raise ValueError(f"generation {generation!r} is not a count of generations")
    gens = [entry.get("gen") if isinstance(entry, dict) else None for entry in logbook]
    first = gens[0] if gens and type(gens[0]) is int else 0
    if not gens or gens != list(range(first, first + len(gens))) or gens[-1] != generation:
        raise ValueError(f"generation {generation} does not match the logbook (gens {gens[-3:]})")
    newest = max(trial.generation for trial in trials)
    if newest > generation:
        raise ValueError(f"generation {generation}, but the archive holds generation {newest}")
    return generation
