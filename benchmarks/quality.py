"""The quality guard: MuSiQue-100 and HotpotQA-100 recall against the recorded figures.

Runs ``mragent bench`` (the installed entry point, in a fresh home of its own, on
the embedded FalkorDB) for each dataset and embedder, reads support recall@2/5/10
of the default genome and of the flat baselines from its report, and compares
the default genome's with ``benchmarks/results/quality.json``. A drop of more
than ``--tolerance`` points (0.5) on any of them fails the run (exit 1), so a
change that costs recall cannot land unnoticed. ``--record`` writes the figures
measured instead (do it in the commit that changes retrieval, ingest or
traversal, and say in its message what moved).

Embeddings come from the on-disk cache (``mragent.core.embedding.cache``): the
first e5-small run embeds both pools once; every later run embeds nothing.

Usage::

    python benchmarks/quality.py                       # both embedders, both datasets
    python benchmarks/quality.py --embedders hashing   # the fast half CI runs
    python benchmarks/quality.py --embedders e5-small --record
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

REPO = Path(__file__).resolve().parent.parent
RECORDED = REPO / "benchmarks" / "results" / "quality.json"
DATASETS = {
    "musique": ("musique_100.json", "musique_100_corpus.json"),
    "hotpotqa": ("hotpotqa_100.json", "hotpotqa_100_corpus.json"),
}
KS = ("2", "5", "10")


def default_data() -> Path:
    """``$MRAGENT_DATASETS``, else the ``shared/datasets`` folder beside the checkout."""
    configured = os.environ.get("MRAGENT_DATASETS")
    if configured:
        return Path(configured)
    for base in (REPO.parent, REPO.parent.parent):
        if (base / "shared" / "datasets").is_dir():
            return base / "shared" / "datasets"
    return REPO.parent / "shared" / "datasets"


def run_bench(dataset: str, embedder: str, data: Path, home: Path) -> dict[str, Any]:
    """One ``mragent bench`` run; its figures by system."""
    questions, pool = DATASETS[dataset]
    out = home / f"{dataset}-{embedder}.json"
    command = [
        "mragent", "bench", "--dataset", dataset, "--path", str(data / questions),
        "--corpus", str(data / pool), "--embedder", embedder, "--no-negative",
        "--unanswerable", "0",
        "--out", str(out),
    ]  # fmt: skip
    env = {**os.environ, "MRAGENT_HOME": str(home), "MRAGENT_PRINCIPAL": "human:quality"}
    env.pop("MRAGENT_DB", None)  # the embedded FalkorDB of the fresh home
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise SystemExit(f"quality: mragent bench {dataset} {embedder} failed: {tail[0]}")
    report = json.loads(out.read_text(encoding="utf-8"))
    systems = {}
    for system in report["systems"]:
        summary = system["summary"]
        systems[system["name"]] = {k: round(100 * summary["recall"][k], 1) for k in KS}
        by_kind: dict[str, list[float]] = {}
        for question in system["questions"]:
            if question["recall"] and question["kind"]:
                by_kind.setdefault(question["kind"], []).append(question["recall"]["5"])
        systems[system["name"]]["R@5 by kind"] = {
            kind: round(100 * sum(values) / len(values), 1)
            for kind, values in sorted(by_kind.items())
        }
    return {"seconds": round(elapsed, 1), "systems": systems}


def compare(measured: dict, recorded: dict, tolerance: float) -> list[str]:
    """Lines naming each recall of the default genome that fell by more than ``tolerance``."""
    drops = []
    for dataset, by_embedder in measured.items():
        for embedder, run in by_embedder.items():
            was = recorded.get(dataset, {}).get(embedder, {}).get("systems", {}).get("mragent")
            if was is None:
                continue
            now = run["systems"]["mragent"]
            for k in KS:
                if now[k] < was[k] - tolerance:
                    drops.append(f"{dataset} {embedder} R@{k}: {now[k]} (recorded {was[k]})")
    return drops


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedders", default="hashing,e5-small", help="comma-separated specs")
    parser.add_argument("--datasets", default="musique,hotpotqa", help="comma-separated")
    parser.add_argument("--data", type=Path, default=default_data(), help="the datasets folder")
    parser.add_argument("--tolerance", type=float, default=0.5, help="points of recall")
    parser.add_argument("--record", action="store_true", help="write the measured figures")
    args = parser.parse_args(argv)
    for dataset in args.datasets.split(","):
        if dataset not in DATASETS:
            parser.error(f"--datasets: unknown dataset {dataset!r} ({', '.join(DATASETS)})")
        for name in DATASETS[dataset]:
            if not (args.data / name).is_file():
                parser.error(f"--data: {args.data / name} is missing")
    recorded = json.loads(RECORDED.read_text(encoding="utf-8")) if RECORDED.exists() else {}
    measured: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="mragent-quality-") as tmp:
        home = Path(tmp)
        try:
            for dataset in args.datasets.split(","):
                for embedder in args.embedders.split(","):
                    run = run_bench(dataset, embedder, args.data, home)
                    measured.setdefault(dataset, {})[embedder] = run
                    figures = run["systems"]["mragent"]
                    was = recorded.get(dataset, {}).get(embedder, {}).get("systems", {})
                    before = was.get("mragent")
                    note = (
                        f" (recorded {before['2']}/{before['5']}/{before['10']})" if before else ""
                    )
                    print(
                        f"{dataset:9} {embedder:9} R@2/5/10 "
                        f"{figures['2']}/{figures['5']}/{figures['10']}{note}  {run['seconds']} s"
                    )
        finally:
            env = {**os.environ, "MRAGENT_HOME": str(home)}
            subprocess.run(["mragent", "db", "stop"], env=env, capture_output=True, check=False)
    if args.record:
        for dataset, by_embedder in measured.items():
            recorded.setdefault(dataset, {}).update(by_embedder)
        RECORDED.parent.mkdir(parents=True, exist_ok=True)
        RECORDED.write_text(json.dumps(recorded, indent=2, sort_keys=True) + "\n", "utf-8")
        print(f"recorded in {RECORDED.relative_to(REPO)}")
        return 0
    drops = compare(measured, recorded, args.tolerance)
    for line in drops:
        print(f"quality: recall fell: {line}", file=sys.stderr)
    return 1 if drops else 0


if __name__ == "__main__":
    sys.exit(main())
