"""How a generation is bred: DEAP's offspring and TPE's proposals in other mixes, against TPE.

Usage:
    python benchmarks/evolution_mixes.py [--seeds 8] [--tpe-batch 16] [--out FILE]
        [--mix NAME:OFFSPRING:PROPOSALS:GENERATIONS[:mv|cl]]...

On the reference corpus as ``mragent evolve`` runs it by default (split 0.3, seed 0,
accuracy objective, core genes, population 16, the namespace's default genome as
baseline and the other presets as seeds), each mix is a DEAP study whose
generations hold ``OFFSPRING`` children of DEAP's variation and ``PROPOSALS`` genomes
of Optuna's TPE fitted on the archive (``mv``: TPE's ``multivariate=True``; ``cl``:
its ``constant_liar=True``), for
``GENERATIONS`` generations; the default search is 16:8:6. Random search and
Optuna's TPE (asked in batches of ``--tpe-batch``) get 160 evaluations at every seed.
Every search shares one cached evaluator. Per mix: the final hypervolume at every
seed, its median, the seeds where it is above and below TPE's, and the seeds where
it reaches random search's final hypervolume within 80 evaluations (half the budget).
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from mragent.apps.bench import ensure_ingested
from mragent.apps.datasets import load_questions_corpus
from mragent.core.genome import CORE_GENES, PRESETS
from mragent.core.store import open_store
from mragent.evolution.evaluator import EvaluationPolicy, Evaluator
from mragent.evolution.hypervolume import evaluations_to_reach, hypervolume_curve
from mragent.evolution.objectives import ACCURACY
from mragent.evolution.optuna_search import optuna_search
from mragent.evolution.random_search import random_search
from mragent.evolution.split import split_questions
from mragent.evolution.study import Study
from mragent.evolution.tpe_proposer import TpeProposer
from mragent.memory.reader import MemoryReader

BUDGET = 160
DEFAULT_MIXES = (
    "default:16:8:6",
    "8+16:8:16:6",
    "2+14:2:14:9",
    "0+16:0:16:9",
    "8+16 multivariate:8:16:6:mv",
    "2+6:2:6:18",
)


TPE_FLAGS = {"mv": "multivariate", "cl": "constant_liar"}


def _mix(spec: str) -> tuple[str, int, int, int, dict[str, bool]]:
    name, offspring, proposals, generations, *flags = spec.split(":")
    return (
        name,
        int(offspring),
        int(proposals),
        int(generations),
        {TPE_FLAGS[f]: True for f in flags},
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument(
        "--mix", action="append", help="NAME:OFFSPRING:PROPOSALS:GENERATIONS[:mv|cl]"
    )
    parser.add_argument("--tpe-batch", type=int, default=16)
    parser.add_argument("--db", default=None, help="database URL (default: embedded)")
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON")
    args = parser.parse_args()
    mixes = [_mix(spec) for spec in (args.mix or DEFAULT_MIXES)]
    seeds = list(range(args.seeds))
    data, ns, _ = load_questions_corpus(None, None, None)
    train, _ = split_questions(data.questions, "0.3", 0)
    curves: dict[str, list[list[float]]] = {}
    with open_store(args.db) as store:
        ensure_ingested(store, data, ns)
        memory = MemoryReader(store, ns)
        baseline = memory.default_genome
        presets = [g for g in PRESETS.values() if g != baseline]
        with Evaluator(memory, train, policy=EvaluationPolicy(ACCURACY.name)) as evaluate:

            def study(
                seed: int, offspring: int, proposals: int, generations: int, tpe: dict[str, bool]
            ) -> Study:
                proposer = TpeProposer(ACCURACY, CORE_GENES, **tpe)
                return Study(
                    evaluate, population=16, generations=generations, seed=seed,
                    baseline=baseline, seeds=presets, offspring=offspring,
                    proposer=proposer if proposals else None, proposals=proposals,
                )  # fmt: skip

            for name, offspring, proposals, generations, tpe in mixes:
                curves[name] = []
                for seed in seeds:
                    run = study(seed, offspring, proposals, generations, tpe)
                    run.optimize()
                    base = run.baseline_trial.evaluation
                    curves[name].append(hypervolume_curve(run.trials, base))
                print(f"{name}: {[round(c[-1], 4) for c in curves[name]]}", flush=True)
            start = study(0, 0, 0, 0, {}).seeds  # the presets as every search starts from them
            common: dict[str, Any] = dict(budget=BUDGET, baseline=baseline, seeds=start)
            curves["random search"], curves["Optuna TPE"] = [], []
            for seed in seeds:
                rnd = random_search(evaluate, seed=seed, **common)
                tpe = optuna_search(
                    evaluate, sampler="tpe", objectives=ACCURACY, seed=seed,
                    batch=args.tpe_batch, **common,
                )  # fmt: skip
                curves["random search"].append(hypervolume_curve(rnd, rnd[0].evaluation))
                curves["Optuna TPE"].append(hypervolume_curve(tpe, tpe[0].evaluation))
    report = _report(curves, args.tpe_batch)
    for line in _table(report):
        print(line)
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n")


def _report(curves: dict[str, list[list[float]]], tpe_batch: int) -> dict[str, Any]:
    finals = {name: [c[-1] for c in runs] for name, runs in curves.items()}
    tpe, random_final = finals["Optuna TPE"], finals["random search"]
    rows = {}
    for name, runs in curves.items():
        mine = finals[name]
        reached = [
            evaluations_to_reach(c, goal) for c, goal in zip(runs, random_final, strict=True)
        ]
        rows[name] = {
            "final_hypervolume": mine,
            "median": statistics.median(mine),
            "above_tpe": sum(a > b + 1e-12 for a, b in zip(mine, tpe, strict=True)),
            "below_tpe": sum(b > a + 1e-12 for a, b in zip(mine, tpe, strict=True)),
            "random_within_half": sum(r is not None and r <= BUDGET // 2 for r in reached),
        }
    return {"budget": BUDGET, "tpe_batch": tpe_batch, "mixes": rows}


def _table(report: dict[str, Any]) -> list[str]:
    lines = [
        f"| search | median final HV | above / below TPE (batches of {report['tpe_batch']}) "
        "| random's final HV within half |",
        "|---|---:|---:|---:|",
    ]
    for name, row in report["mixes"].items():
        seeds = len(row["final_hypervolume"])
        lines.append(
            f"| {name} | {row['median']:.4f} | {row['above_tpe']} / {row['below_tpe']} "
            f"| {row['random_within_half']}/{seeds} |"
        )
    return lines


if __name__ == "__main__":
    main()
