"""Cold ``mragent recall``: a fresh process answering one question, interleaved across trees.

Usage:
    python benchmarks/cold_recall.py [--rounds 20] [--baseline DIR] [--db URL]
        [--musique FILE --pool FILE] [--out FILE]

Ingests the pooled MuSiQue corpus (read from ``../shared/datasets/``, never copied)
into a namespace of its own unless it is there already, then times, per round and
in a shuffled order, the wall time of ``mragent recall QUESTION`` in a fresh
interpreter for this checkout and, with ``--baseline``, for another source tree
(``git worktree add DIR COMMIT``), so machine noise hits both alike. Each tree
keeps its index copies in a directory of its own (``$MRAGENT_INDEX_DIR``), built
before the first timed round: a copy's format may differ between trees. The
question changes every round (MuSiQue's questions, in order), and both trees
answer the same one. A run inside the process splits the time of this
checkout's recall by stage: imports, opening the store, opening the reader (the
index copy), the answer.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mragent.apps.bench import ensure_ingested
from mragent.apps.datasets import dataset_namespace, load_dataset
from mragent.core.paths import default_home
from mragent.core.store import open_store

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "datasets"
_MAIN = "import sys; from mragent.cli import main; sys.argv[0] = 'mragent'; main()"
_STAGES = """
import json, sys, time
t0 = time.perf_counter()
from mragent.cli.memory import recall_command  # the command's own imports
from mragent.facade import open_memory
t1 = time.perf_counter()
with open_memory(sys.argv[1]) as session:
    t2 = time.perf_counter()
    session.recall("warm nothing")  # opens the reader (loads the index copy)
    t3 = time.perf_counter()
    session.recall(sys.argv[2])
    t4 = time.perf_counter()
ms = lambda a, b: round((b - a) * 1000, 1)
print(json.dumps({"imports": ms(t0, t1), "open store (importing its client)": ms(t1, t2),
                  "open reader (index copy) + first answer": ms(t2, t3), "answer": ms(t3, t4)}))
"""


def _env(tree: Path, index_dir: Path, db: str | None) -> dict[str, str]:
    # Every tree runs in its own directory, so the home is named: else each would open
    # (or start) the embedded database of its own directory's ./.mragent.
    env = {
        **os.environ,
        "PYTHONPATH": str(tree),
        "MRAGENT_INDEX_DIR": str(index_dir),
        "MRAGENT_HOME": str(default_home().resolve()),
    }
    if db:
        env["MRAGENT_DB"] = db
    return env


def _recall(tree: Path, env: dict[str, str], ns: str, question: str) -> float:
    """Wall time in ms of one ``mragent recall`` process run from ``tree``."""
    command = [sys.executable, "-c", _MAIN, "recall", question, "--ns", ns]
    start = time.perf_counter()
    subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=True)
    return (time.perf_counter() - start) * 1000


def _stats(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50_ms": statistics.median(ordered),
        "p95_ms": ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--baseline", type=Path, help="another mragent source tree")
    parser.add_argument("--db", default=None, help="database URL (default: embedded)")
    parser.add_argument("--musique", type=Path, default=DATA / "musique_100.json")
    parser.add_argument("--pool", type=Path, default=DATA / "musique_100_corpus.json")
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON")
    args = parser.parse_args()
    corpus = load_dataset("musique", args.musique, args.pool)
    ns = dataset_namespace("musique", args.musique, args.pool)
    with open_store(args.db) as store:
        ensure_ingested(store, corpus, ns)
    questions = [q.question for q in corpus.questions]
    trees = {"this": ROOT}
    if args.baseline:
        trees["baseline"] = args.baseline.resolve()
    samples: dict[str, list[float]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory(prefix="mragent-cold-") as scratch:
        envs = {name: _env(tree, Path(scratch) / name, args.db) for name, tree in trees.items()}
        for name, tree in trees.items():  # builds and saves each tree's index copy
            _recall(tree, envs[name], ns, questions[0])
        stages = subprocess.run(
            [sys.executable, "-c", _STAGES, ns, questions[1]],
            cwd=ROOT, env=envs["this"], capture_output=True, text=True, check=True,
        )  # fmt: skip
        order = list(trees)
        rng = random.Random(0)
        for round_ in range(args.rounds):
            rng.shuffle(order)
            question = questions[round_ % len(questions)]
            for name in order:
                samples[name].append(_recall(trees[name], envs[name], ns, question))
    report = {
        "namespace": ns,
        "contents": len(corpus.contents),
        "rounds": args.rounds,
        "load_average": os.getloadavg(),
        "stages_ms": json.loads(stages.stdout),
        **{name: _stats(values) for name, values in samples.items()},
    }
    if "baseline" in samples:
        report["ratio_p50"] = report["this"]["p50_ms"] / report["baseline"]["p50_ms"]
    for name in trees:
        got = report[name]
        print(f"{name:>9}: p50 {got['p50_ms']:7.1f} ms   p95 {got['p95_ms']:7.1f} ms")
    if "ratio_p50" in report:
        print(f"this / baseline at p50: {report['ratio_p50']:.2f}")
    print("this checkout by stage (ms):", report["stages_ms"])
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
