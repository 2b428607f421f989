"""Evolution benchmarks: compared searches, held-out recall, wall time, scaling with workers.

Usage:
    python benchmarks/evolution.py compare [--data musique|reference --genes core|extended]
    python benchmarks/evolution.py heldout [--genes core,extended --population 12 --generations 7]
    python benchmarks/evolution.py scaling [--workers-list 1,2,4 --population 32 --generations 2]
    python benchmarks/evolution.py reference [--repeats 3]

Each writes ``benchmarks/evolution_<name>.json`` and ``benchmarks/evolution_<name>.md``.

* ``compare``: NSGA-II, random search, Optuna TPE and Optuna NSGA-II at
  NSGA-II's budget over several search seeds, on one cached evaluator, on the
  MuSiQue-100 training half (``--split 0.5``, the first seed picks it; recall
  objectives) or the reference corpus's (``--data reference``: as ``mragent
  evolve`` with its defaults). ``--cache FILE`` keeps the deterministic
  evaluations between runs, so a compare after a change to one search evaluates
  only what no earlier run proposed.
* ``heldout``: ``run_evolve`` on the MuSiQue-100 training half per gene set
  (``--genes core,extended``); the gate's winner beside the default on the
  held-out half.
* ``scaling``: the same NSGA-II study (same seed) evaluated serially and on a
  Dask LocalCluster of 1, 2 and 4 workers (reached by its address, as
  ``--scheduler`` does), the runs interleaved twice, with the
  archives checked equal; wall time and the ratio to the serial run.
* ``reference``: ``mragent evolve`` with its defaults on the reference corpus,
  as a subprocess of the installed command, wall time per run.

Run on the shared machine, so times are what they were at the moment; the
interleaving in ``scaling`` puts drift on every worker count alike.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mragent.apps.bench import ensure_ingested
from mragent.apps.datasets import load_questions_corpus
from mragent.core.store import open_store
from mragent.evolution.compare import LABELS
from mragent.evolution.evaluator import EvaluationPolicy, Evaluator
from mragent.evolution.run import EvolveOptions, EvolveRun, run_evolve
from mragent.evolution.split import split_questions
from mragent.memory.reader import MemoryReader

HERE = Path(__file__).resolve().parent
DATASETS = Path(os.environ.get("MRAGENT_DATASETS", HERE.parent.parent.parent / "shared/datasets"))
MUSIQUE = DATASETS / "musique_100.json"
MUSIQUE_POOL = DATASETS / "musique_100_corpus.json"


def _write(name: str, data: dict[str, Any], markdown: list[str]) -> None:
    (HERE / f"evolution_{name}.json").write_text(json.dumps(data, indent=2) + "\n")
    (HERE / f"evolution_{name}.md").write_text("\n".join(markdown) + "\n")
    print("\n".join(markdown))


def _musique(db: str | None) -> tuple[Any, str, Any]:
    data, ns, _ = load_questions_corpus("musique", MUSIQUE, MUSIQUE_POOL)
    store = open_store(db)
    ensure_ingested(store, data, ns)
    return store, ns, data


_DATA = {"musique": "MuSiQue-100", "reference": "reference corpus"}


def _reference(db: str | None) -> tuple[Any, str, Any, Path]:
    data, ns, path = load_questions_corpus(None, None, None)
    store = open_store(db)
    ensure_ingested(store, data, ns)
    return store, ns, data, path


def _embedder() -> str:
    from mragent.core.embedding import default_embedder

    return str(default_embedder().identity)


def compare(args: argparse.Namespace) -> None:
    from mragent.core.genome import GeneSet
    from mragent.evolution.compare import compare_searches
    from mragent.evolution.objectives import ACCURACY, RECALL
    from mragent.evolution.run import new_study
    from mragent.evolution.split import DEFAULT_SPLIT

    if args.data == "musique":
        store, ns, data = _musique(args.db)
        split, objectives, path = "0.5", RECALL, MUSIQUE
        ranges: tuple[tuple[str, float, float], ...] = (
            ("traversalDepth", 1.0, float(args.max_depth)),
        )
    else:  # the bundled reference corpus, as `mragent evolve` with its defaults
        store, ns, data, path = _reference(args.db)
        split, objectives, ranges = DEFAULT_SPLIT, ACCURACY, ()
    options = EvolveOptions(
        corpus_path=path,
        ns=ns,
        generations=args.generations,
        population=args.population,
        seed=args.seed,
        split=split,
        objective=objectives.name,
        gene_set=GeneSet(args.genes),
        gene_ranges=ranges,
    )
    train, _ = split_questions(data.questions, split, args.seed)
    cache = _EvaluationCache(Path(args.cache)) if args.cache else None
    evaluator = Evaluator(
        MemoryReader(store, ns),
        train,
        db_url=args.db or store.secret_url,
        workers=args.workers,
        policy=EvaluationPolicy(objectives.name),
        on_evaluated=cache.add if cache else None,
    )
    if cache:
        evaluator.cache.update(cache.known)

    reused = evaluator.evaluations
    started = time.perf_counter()
    with evaluator:
        comparison = compare_searches(
            evaluator,
            lambda seed, selection: new_study(
                evaluator, options, seed, evaluator.memory.default_genome, selection=selection
            ),
            [args.seed + i for i in range(args.seeds)],
            on_phase=lambda m: print(f"[{_clock()}] {m}", flush=True),
        )
    elapsed = time.perf_counter() - started
    report = comparison.to_dict()
    curves = {f"{r['method']}@{r['seed']}": r.pop("hypervolume_curve") for r in report["runs"]}
    caps = store.capabilities
    result = {
        "command": " ".join(sys.argv),
        "elapsed_s": elapsed,
        "engine": f"{caps.engine} {caps.version}",
        "embedder": _embedder(),
        "data": args.data,
        "train_questions": len(train),
        "genes": args.genes,
        "budget": {"population": args.population, "generations": args.generations},
        "evaluated_here": evaluator.evaluations - reused,
        "reused_from_cache": reused,
        "comparison": report,
    }
    name = args.name or f"compare-{args.data}-{args.genes}"
    (HERE / f"evolution_{name}_curves.json").write_text(json.dumps(curves) + "\n")
    _write(name, result, _compare_markdown(result))


class _EvaluationCache:
    """Evaluations kept on disk between benchmark runs (genome -> figures).

    An evaluation's objectives are deterministic for one genome, question set and
    code, so a later compare (e.g. after changing the search) re-evaluates only
    genomes no earlier run proposed. Only latency fields differ from a fresh run,
    and no compared figure reads them.
    """

    def __init__(self, path: Path) -> None:
        from mragent.core.genome import make_genome
        from mragent.evolution.trial import Evaluation

        self.path = path
        self.known: dict[Any, Any] = {}
        if path.exists():
            for line in path.read_text().splitlines():
                item = json.loads(line)
                self.known[make_genome(item["genome"])] = Evaluation.from_dict(item["evaluation"])
        path.parent.mkdir(parents=True, exist_ok=True)

    def add(self, genome: Any, evaluation: Any) -> None:
        with self.path.open("a") as out:
            item = {"genome": genome.to_json_dict(), "evaluation": evaluation.to_dict()}
            out.write(json.dumps(item) + "\n")


def heldout(args: argparse.Namespace) -> None:
    """``run_evolve`` per gene set on the MuSiQue-100 training half; its winner on the rest."""
    from mragent.core.genome import GeneSet

    store, ns, data = _musique(args.db)
    runs: dict[str, Any] = {}
    for genes in args.genes.split(","):
        options = EvolveOptions(
            corpus_path=MUSIQUE,
            ns=ns,
            worker_url=args.db or store.secret_url,
            generations=args.generations,
            population=args.population,
            seed=args.seed,
            split="0.5",
            workers=args.workers,
            out_dir=Path(args.out) / genes,
            objective="recall",
            gene_set=GeneSet(genes),
            gene_ranges=(("traversalDepth", 1.0, float(args.max_depth)),),
        )
        started = time.perf_counter()
        run = run_evolve(store, data, options, on_phase=lambda m: print(f"[{_clock()}] {m}"))
        runs[genes] = {
            "elapsed_s": time.perf_counter() - started,
            "genomes": len(run.study.trials),
            "gate": run.gate.to_dict(),
            "held_out": _held_out(run),
        }
    result = {
        "command": " ".join(sys.argv),
        "engine": f"{store.capabilities.engine} {store.capabilities.version}",
        "embedder": _embedder(),
        "runs": runs,
    }
    lines = [
        "# Held-out recall of the evolved genome (MuSiQue-100, split 0.5)",
        "",
        f"`{result['command']}`: {result['engine']}, embedder {result['embedder']}; the gate "
        "picks the winner on the training half, which is then run beside the default on the "
        "held-out half (target: R@5 >= default + 5 points).",
        "",
        "| genes | genomes | gate | winner | held-out R@5 default -> evolved | "
        "held-out accuracy default -> evolved |",
        "|---|---:|---|---:|---|---|",
    ]
    for genes, entry in runs.items():
        held = entry["held_out"]
        lines.append(
            f"| {genes} | {entry['genomes']} | "
            f"{'passed' if entry['gate']['passed'] else 'not passed'} | #{held['variant_trial']} | "
            f"{held['baseline_R@5']:.1f} -> {held['evolved_R@5']:.1f} | "
            f"{held['baseline_accuracy']:.1f} -> {held['evolved_accuracy']:.1f} |"
        )
    _write("heldout", result, lines)


def _held_out(run: EvolveRun) -> dict[str, Any] | None:
    held = run.held_out
    if held is None:
        return None
    return {
        "questions": len(held.questions),
        "variant_trial": run.chosen.number,
        "baseline_R@5": 100 * held.baseline.recall_at(5),
        "evolved_R@5": 100 * held.variant.recall_at(5),
        "baseline_accuracy": 100 * held.baseline.accuracy,
        "evolved_accuracy": 100 * held.variant.accuracy,
        "gate_holds": held.holds,
        "genome": run.chosen.params,
    }


def _compare_markdown(result: dict[str, Any]) -> list[str]:
    report = result["comparison"]
    budget = result["budget"]
    lines = [
        f"# Compared searches on the {_DATA[result['data']]} training questions",
        "",
        f"`{result['command']}`: {result['train_questions']} training questions, "
        f"{result['engine']}, embedder {result['embedder']}, genes {result['genes']}, "
        f"NSGA-II population {budget['population']} x {budget['generations']} generations "
        f"(each other method gets NSGA-II's distinct-genome count), seeds "
        f"{', '.join(map(str, report['seeds']))}; {result['elapsed_s']:.0f} s in all, "
        f"{result['evaluated_here']} genomes evaluated, {result['reused_from_cache']} "
        "taken from earlier runs' evaluations.",
        "",
        "| method | evaluations | final HV median [min..max] | best score median | "
        "in box (median) | to gate (median) | to random's final HV (median, share of budget) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for f in report["methods"]:
        hv, best = f["final_hypervolume"], f["best_score"]
        reach = f["to_reach_random_final_hv"]
        share = f["budget_share_to_reach_random_final_hv"]
        lines.append(
            f"| {LABELS[f['method']]} | {sorted(f['evaluations'])[len(f['evaluations']) // 2]} | "
            f"{hv['median']:.4f} [{hv['min']:.4f}..{hv['max']:.4f}] | {best['median']:.3f} | "
            f"{f['inside_box_share']['median']:.0%} | "
            f"{f['evaluations_to_gate']['median']} | {reach['median']} (never: {reach['never']})"
            f"{'' if share is None else f', {share:.0%}'} |"
        )
    lines += ["", *[f"- {c['statement']}." for c in report["claims"]]]
    return lines


def scaling(args: argparse.Namespace) -> None:
    from mragent.core.genome import PRESETS, narrowed_genes
    from mragent.evolution.objectives import RECALL
    from mragent.evolution.study import Study

    store, ns, data = _musique(args.db)
    train, _ = split_questions(data.questions, "0.5", args.seed)
    memory = MemoryReader(store, ns)
    counts = [int(w) for w in args.workers_list.split(",")]
    times: dict[str, list[float]] = {}
    archives: dict[str, list[Any]] = {}
    for _ in range(args.rounds):
        for workers in [0, *counts]:  # 0: serial, in this process
            label = "serial" if workers == 0 else f"{workers} workers"
            # A cluster of its own, reached by address as --scheduler does (so one
            # worker is a real cluster too); it starts outside the timed part.
            cluster = _cluster(workers)
            evaluator = Evaluator(
                memory,
                train,
                db_url=args.db or store.secret_url,
                scheduler=cluster.scheduler_address if cluster else None,
                policy=EvaluationPolicy("recall"),
            )
            evaluator.start()
            study = Study(
                evaluator,
                population=args.population,
                generations=args.generations,
                seed=args.seed,
                seeds=[g for n, g in PRESETS.items() if n != "default"],
                objectives=RECALL,
                genes=narrowed_genes({"traversalDepth": (1, args.max_depth)}),
            )
            started = time.perf_counter()
            study.optimize()
            times.setdefault(label, []).append(time.perf_counter() - started)
            evaluator.close()
            if cluster:
                cluster.close()
            archives[label] = [(t.genome.to_json_dict(), t.values) for t in study.trials]
            print(f"[{_clock()}] {label}: {times[label][-1]:.1f} s, {len(study.trials)} genomes")
    reference = archives["serial"]
    identical = {label: archive == reference for label, archive in archives.items()}
    serial = min(times["serial"])
    result = {
        "command": " ".join(sys.argv),
        "cores": os.cpu_count(),
        "genomes": len(reference),
        "times_s": times,
        "speedup_vs_serial_best": {label: serial / min(t) for label, t in times.items()},
        "archive_identical_to_serial": identical,
    }
    lines = [
        "# Scaling with Dask workers (MuSiQue-100 training half)",
        "",
        f"`{result['command']}`: {result['genomes']} genomes per run, {result['cores']} cores "
        "(shared with other work), runs interleaved; best of the rounds.",
        "",
        "| evaluation | wall s (each round) | speed-up vs serial | archive = serial |",
        "|---|---|---:|---|",
    ]
    for label, values in times.items():
        lines.append(
            f"| {label} | {', '.join(f'{v:.1f}' for v in values)} | "
            f"{result['speedup_vs_serial_best'][label]:.2f} | {identical[label]} |"
        )
    _write("scaling", result, lines)


def _cluster(workers: int) -> Any:
    """A LocalCluster of ``workers`` single-threaded processes (None for 0: serial)."""
    if workers == 0:
        return None
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    )


def reference(args: argparse.Namespace) -> None:
    times = []
    for i in range(args.repeats):
        with tempfile.TemporaryDirectory() as out:
            started = time.perf_counter()
            done = subprocess.run(
                ["mragent", "evolve", "--out", out], capture_output=True, text=True, check=False
            )
            times.append(time.perf_counter() - started)
            print(f"[{_clock()}] run {i + 1}: {times[-1]:.1f} s, exit {done.returncode}")
            report = json.loads((Path(out) / "optimize.report.json").read_text())
    result = {
        "command": "mragent evolve --out DIR (defaults, reference corpus, embedded FalkorDB)",
        "wall_s": times,
        "genomes": len(report["archive"]),
        "search_elapsed_s": report["search"]["elapsed_s"],
        "gate": {"passed": report["gate"]["passed"], "winner": report["gate"]["winner"]},
    }
    lines = [
        "# `mragent evolve` with defaults on the reference corpus",
        "",
        f"{result['genomes']} genomes; wall time of the whole command per run: "
        f"{', '.join(f'{t:.1f}' for t in times)} s (target <= 60 s on 2 cores).",
    ]
    _write("reference", result, lines)


def _clock() -> str:
    return time.strftime("%H:%M:%S")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=None, help="Database URL (default: embedded FalkorDB).")
    sub = parser.add_subparsers(dest="what", required=True)
    c = sub.add_parser("compare")
    c.add_argument("--population", type=int, default=12)
    c.add_argument("--generations", type=int, default=7)
    c.add_argument("--seeds", type=int, default=5)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--workers", type=int, default=2)
    c.add_argument("--max-depth", type=int, default=3)
    c.add_argument("--data", choices=sorted(_DATA), default="musique")
    c.add_argument("--genes", choices=["core", "extended"], default="core")
    c.add_argument("--cache", default=None, help="JSONL file of evaluations kept between runs.")
    c.add_argument("--name", default=None, help="Output name (default: compare-GENES).")
    h = sub.add_parser("heldout")
    h.add_argument("--genes", default="core,extended")
    h.add_argument("--population", type=int, default=12)
    h.add_argument("--generations", type=int, default=7)
    h.add_argument("--seed", type=int, default=0)
    h.add_argument("--workers", type=int, default=1)
    h.add_argument("--max-depth", type=int, default=3)
    h.add_argument("--out", default=str(HERE.parent / ".mragent" / "evolution-heldout"))
    s = sub.add_parser("scaling")
    s.add_argument("--workers-list", default="1,2,4")
    s.add_argument("--population", type=int, default=32)
    s.add_argument("--generations", type=int, default=2)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--rounds", type=int, default=2)
    s.add_argument("--max-depth", type=int, default=3)
    r = sub.add_parser("reference")
    r.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    commands = {"compare": compare, "heldout": heldout, "scaling": scaling, "reference": reference}
    commands[args.what](args)


if __name__ == "__main__":
    main()
