"""Random search with the same evaluation budget: the control NSGA-II is compared to."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence

from mragent.core.genome import GENES, GeneSpec, Genome
from mragent.evolution.encoding import decode, random_genotype
from mragent.evolution.trial import Evaluation, Trial, number_trials

BatchEvaluate = Callable[[Sequence[Genome]], list[Evaluation]]


def random_search(
    evaluate: BatchEvaluate,
    *,
    budget: int,
    seed: int = 0,
    baseline: Genome | None = None,
    seeds: Iterable[Genome] = (),
    batch: int = 16,
    genes: tuple[GeneSpec, ...] = GENES,
) -> list[Trial]:
    """Evaluate ``budget`` distinct genomes: the baseline, the seeds, then uniform samples.

    The start matches the NSGA-II study's initial population (baseline and
    seed genomes), so the two differ only in how the rest of the budget is spent.

    Args:
        evaluate: Evaluates a batch of genomes (results in input order).
        budget: Distinct genomes to evaluate, baseline included (>= 1).
        seed: Seeds this search's own ``random.Random``.
        baseline: The score policy's base (default: the default genome).
        seeds: Genomes evaluated right after the baseline.
        batch: Genomes sampled per evaluation call (parallelism).
        genes: Gene ranges to sample from (default: the model's).

    Returns:
        The trials, in evaluation order (number 0 is the baseline).

    Raises:
        ValueError: when ``budget`` or ``batch`` is below 1.
    """
    if budget < 1:
        raise ValueError(f"budget must be >= 1, got {budget}")
    if batch < 1:
        raise ValueError(f"batch must be >= 1, got {batch}")
    rng = random.Random(seed)
    baseline = baseline or Genome()
    start = list(dict.fromkeys([baseline, *seeds]))[:budget]
    chosen: list[tuple[Genome, str]] = [(g, "baseline" if g == baseline else "seed") for g in start]
    seen = {g for g, _ in chosen}
    attempts = 0
    while len(chosen) < budget and attempts < 1000 * budget:
        attempts += 1
        genome = decode(random_genotype(rng, genes), genes)
        if genome not in seen:
            seen.add(genome)
            chosen.append((genome, "random"))
    records: list[tuple[Genome, str, Evaluation]] = []
    for offset in range(0, len(chosen), batch):
        part = chosen[offset : offset + batch]
        evaluations = evaluate([g for g, _ in part])
        records += [(g, origin, e) for (g, origin), e in zip(part, evaluations, strict=True)]
    return number_trials(records)
