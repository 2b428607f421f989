"""Optuna on the genome: its samplers as compared searches, and the archive as an Optuna study.

The genome's search space as Optuna distributions comes from the gene model
(:data:`mragent.core.genome.GENES` or a narrowed copy): ints as
``IntDistribution``, floats as ``FloatDistribution`` on the encoding's 0.001
grid, enums as ``CategoricalDistribution``.

:func:`optuna_search` drives Optuna's TPE or NSGA-II sampler through ask/tell
on the same cached evaluator the other searches use, in batches (so a pool
evaluates them in parallel), until it has evaluated ``budget`` distinct
genomes. The baseline and the preset seeds are told first, as in every other
search; for NSGA-II they are marked generation 0 (its sampler ignores trials
without that mark). With sequential ask/tell and a seed, Optuna's samplers are
reproducible.

:func:`export_study` writes an archive into an Optuna storage (e.g.
``sqlite:///evolve.db``), so optuna-dashboard and ``optuna.visualization``
(parameter importances, parallel coordinates, Pareto front) read it.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import optuna
from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)
from optuna.exceptions import ExperimentalWarning, OptunaError
from optuna.study import StudyDirection
from optuna.trial import TrialState
from sqlalchemy.exc import SQLAlchemyError

from mragent.core.errors import ConfigError
from mragent.core.genome import CORE_GENES, GENES, GeneSpec, Genome, make_genome
from mragent.evolution.encoding import FLOAT_DECIMALS
from mragent.evolution.objectives import Objectives
from mragent.evolution.study import BatchEvaluate
from mragent.evolution.trial import Trial, number_trials

SAMPLERS = ("tpe", "nsga2")
MAX_ASKS_PER_EVALUATION = 20
"""Asks allowed per distinct evaluation before a sampler that keeps repeating itself stops."""
_GENERATION_KEY = "NSGAIISampler:generation"


def distributions(genes: Sequence[GeneSpec] = GENES) -> dict[str, BaseDistribution]:
    """The genes as Optuna distributions (their ranges, the encoding's float grid)."""
    found: dict[str, BaseDistribution] = {}
    for spec in genes:
        if spec.kind == "enum":
            found[spec.name] = CategoricalDistribution(spec.choices)
            continue
        assert spec.low is not None and spec.high is not None, spec.name
        if spec.kind == "int":
            found[spec.name] = IntDistribution(int(spec.low), int(spec.high))
        else:
            found[spec.name] = FloatDistribution(spec.low, spec.high, step=10.0**-FLOAT_DECIMALS)
    return found


def genome_of(params: Mapping[str, Any]) -> Genome:
    """The genome an Optuna trial's params describe (floats back on the 0.001 grid)."""
    values = {k: round(v, FLOAT_DECIMALS) if isinstance(v, float) else v for k, v in params.items()}
    return make_genome(values)


def _params(genome: Genome, dists: Mapping[str, BaseDistribution]) -> dict[str, Any] | None:
    """The genome's params, or None when one lies outside the searched distributions."""
    values = genome.to_json_dict()
    params = {name: values[name] for name in dists}
    return params if all(_inside(params[n], dist) for n, dist in dists.items()) else None


def told_trial(
    genome: Genome,
    values: Sequence[float],
    dists: Mapping[str, BaseDistribution],
    system_attrs: Mapping[str, Any] | None = None,
) -> optuna.trial.FrozenTrial | None:
    """An evaluated genome as a finished Optuna trial to tell a sampler (None: a gene
    lies outside the searched distributions)."""
    params = _params(genome, dists)
    if params is None:
        return None
    return optuna.trial.create_trial(
        params=params,
        distributions=dict(dists),
        values=list(values),
        system_attrs=dict(system_attrs or {}),
    )


def _inside(value: Any, dist: BaseDistribution) -> bool:
    if isinstance(dist, CategoricalDistribution):
        return value in dist.choices
    assert isinstance(dist, (IntDistribution, FloatDistribution))
    return bool(dist.low <= value <= dist.high)


def directions(objectives: Objectives) -> list[StudyDirection]:
    """Optuna's directions for an objective set."""
    return [
        StudyDirection.MAXIMIZE if w > 0 else StudyDirection.MINIMIZE for w in objectives.weights
    ]


def _sampler(name: str, seed: int, population: int) -> optuna.samplers.BaseSampler:
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed)
    if name == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=seed, population_size=population)
    raise ValueError(f"unknown sampler {name!r} (one of {', '.join(SAMPLERS)})")


def optuna_search(
    evaluate: BatchEvaluate,
    *,
    sampler: str,
    budget: int,
    objectives: Objectives,
    seed: int = 0,
    baseline: Genome | None = None,
    seeds: Iterable[Genome] = (),
    batch: int = 16,
    genes: Sequence[GeneSpec] = CORE_GENES,
) -> list[Trial]:
    """Evaluate ``budget`` distinct genomes proposed by an Optuna sampler.

    Args:
        evaluate: Evaluates a batch of genomes (results in input order).
        sampler: ``tpe`` or ``nsga2``.
        budget: Distinct genomes to evaluate, baseline included (>= 1).
        objectives: The objective set the evaluations follow (Optuna's directions).
        seed: Seeds the sampler.
        baseline: Evaluated first (default: the default genome).
        seeds: Genomes evaluated right after the baseline.
        batch: Genomes asked per round (NSGA-II's population size).
        genes: The searched genes and ranges (default: the core set).

    Returns:
        The trials in evaluation order (number 0 is the baseline); fewer than
        ``budget`` only when the sampler stopped proposing new genomes.

    Raises:
        ValueError: on a bad sampler name, budget or batch.
    """
    if budget < 1 or batch < 1:
        raise ValueError(f"budget and batch must be >= 1, got {budget} and {batch}")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    dists = distributions(genes)
    study = optuna.create_study(
        directions=directions(objectives), sampler=_sampler(sampler, seed, batch)
    )
    baseline = baseline or Genome()
    start = list(dict.fromkeys([baseline, *seeds]))[:budget]
    seen = dict(zip(start, evaluate(start), strict=True))
    records = [(g, "baseline" if g == baseline else "seed", seen[g]) for g in start]
    marks = {_GENERATION_KEY: 0} if sampler == "nsga2" else {}
    told = 0
    for genome in start:
        finished = told_trial(genome, seen[genome].values, dists, marks)
        if finished is not None:  # a baseline outside a narrowed range is not shown
            study.add_trial(finished)
            told += 1
    asks = 0
    size = max(1, batch - told)  # the rest of NSGA-II's generation 0
    while len(records) < budget and asks < MAX_ASKS_PER_EVALUATION * budget:
        asked = [study.ask(dists) for _ in range(size)]
        asks, size = asks + len(asked), batch
        genomes = [genome_of(t.params) for t in asked]
        new = [g for g in dict.fromkeys(genomes) if g not in seen][: budget - len(records)]
        for genome, evaluation in zip(new, evaluate(new), strict=True):
            seen[genome] = evaluation
            records.append((genome, sampler, evaluation))
        for trial, genome in zip(asked, genomes, strict=True):
            if genome in seen:
                study.tell(trial, list(seen[genome].values))
    return number_trials(records)


def _user_attrs(trial: Trial) -> dict[str, Any]:
    e = trial.evaluation
    attrs: dict[str, Any] = {
        "number": trial.number,
        "generation": trial.generation,
        "origin": trial.origin,
        "score": trial.score,
        "latency_p50_ms": e.latency_p50_ms,
        "latency_p95_ms": e.latency_p95_ms,
        "questions": e.questions,
        "timed_out": e.timed_out,
    }
    attrs.update({f"recall@{k}": v for k, v in e.recall})
    return attrs


def export_study(
    trials: Sequence[Trial],
    storage: str,
    *,
    study_name: str,
    objectives: Objectives,
    attrs: Mapping[str, Any] | None = None,
) -> str:
    """Write an archive into an Optuna storage as one study (replacing one of the same name).

    Every trial becomes a COMPLETE Optuna trial with the genome as params (on
    the gene model's full ranges), the objective values, and the trial number,
    generation, origin, score and measured latency as user attributes. A genome
    stopped by the time cap is a FAIL trial (its figures cover part of the questions).

    Args:
        trials: The archive, in evaluation order.
        storage: An Optuna storage URL, e.g. ``sqlite:///evolve.db``.
        study_name: The study's name in that storage.
        objectives: The objective set (directions and metric names).
        attrs: Study-level user attributes (corpus, engine, seed, ...).

    Returns:
        The study's name.

    Raises:
        ConfigError: when the storage cannot be opened.
    """
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    dists = distributions(GENES)
    try:
        storage_obj = optuna.storages.get_storage(storage)
    except (ValueError, ImportError, OptunaError, SQLAlchemyError) as exc:
        raise ConfigError(f"--optuna-storage {storage!r}: {exc}") from None
    if study_name in {s.study_name for s in optuna.get_all_study_summaries(storage_obj)}:
        optuna.delete_study(study_name=study_name, storage=storage_obj)
    study = optuna.create_study(
        storage=storage_obj, study_name=study_name, directions=directions(objectives)
    )
    with warnings.catch_warnings():  # experimental in Optuna 3.2-5.0, and what the dashboard reads
        warnings.simplefilter("ignore", ExperimentalWarning)
        study.set_metric_names(list(objectives.names))
    for key, value in (attrs or {}).items():
        study.set_user_attr(key, value)
    study.add_trials(
        [
            optuna.trial.create_trial(
                state=_state(t),
                params={name: t.params[name] for name in dists},
                distributions=dists,
                values=list(t.values) if t.evaluation.full else None,
                user_attrs=_user_attrs(t),
            )
            for t in trials
        ]
    )
    return study_name


def _state(trial: Trial) -> TrialState:
    """Optuna's state for a trial: failed when timed out, pruned when only screened."""
    if trial.evaluation.timed_out:
        return TrialState.FAIL
    return TrialState.COMPLETE if trial.evaluation.full else TrialState.PRUNED
