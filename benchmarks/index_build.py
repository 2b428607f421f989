"""A reader's cold index build and its persisted copy at size, without a database.

Usage:
    python benchmarks/index_build.py [--cues 100000] [--contents 20000] [--dim 384]
        [--queries 200] [--loads 5] [--bulk-min N] [--before PATH]
        [--out benchmarks/results/index_build]

Generates a namespace's index rows (seeded: cue texts of two or three words from a
vocabulary, contents with a title and a text, random unit vectors of ``--dim``
dimensions for cues and passages, as a real embedder's namespace has both) and
feeds them to the indexes as a reader's full build does (``CueIndex.add`` in text
order, ``PassageIndex.apply`` in key order):

* **build**: the cue and passage HNSW builds on one thread, then as a cold full build
  runs them (``bulk``: on every CPU at
  :data:`~mragent.core.retrieval.cue_search.BULK_THREADS_MIN` vectors or more;
  ``--bulk-min`` sets another threshold, to time a threaded build at a smaller size), with
  the CPU time beside the wall time (on a shared machine the wall time of the
  threaded build says how many cores were free); and how alike ``--queries`` dense
  cue searches (efSearch 64, random unit queries) are in the two graphs;
* **copy**: the one-thread build saved as a persisted copy
  (:mod:`mragent.memory.index_files`), then loaded ``--loads`` times, each in a fresh
  process, as a new reader would, with the seal check's share of it. With ``--before``
  (a checkout of another revision, e.g. ``git worktree add /tmp/before HEAD~3``), that
  tree builds and saves the same rows in its own format, and the loads of the two
  alternate, so machine noise hits both alike.

Results go to ``<out>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from mragent.core.embedding import EmbedderIdentity
from mragent.core.retrieval import cue_search
from mragent.memory import index_files
from mragent.memory.live_index import LiveIndex

NS, SCOPES, UID = "bench-index", ("shared",), "00000000-0000-4000-8000-000000000001"
EF = 64


def rows(cues: int, contents: int, dim: int) -> tuple[list[dict], list[dict]]:
    """Index rows as the change feed gives them, sorted as a full build adds them."""
    rng = np.random.default_rng(11)
    words = [f"w{i:05d}" for i in range(max(1000, cues // 4))]

    def vectors(n: int) -> np.ndarray:
        v = rng.normal(size=(n, dim)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    texts = sorted({" ".join(rng.choice(words, rng.integers(2, 4))) for _ in range(cues * 2)})
    texts = texts[:cues]
    cue_rows = [
        {"id": f"cue-{i:07d}", "text": text, "scope": "shared", "embedding": vector}
        for i, (text, vector) in enumerate(zip(texts, vectors(len(texts)), strict=True))
    ]
    state = {
        "scope": "shared", "forgotten": False, "recorded_at": 0.0, "superseded_at": None,
        "trust": "accepted", "trust_since": 0.0, "trust_at": [0.0],
        "trust_log": ["accepted"], "v": 1,
    }  # fmt: skip
    content_rows = [
        {
            "id": f"content-{i:07d}",
            "key": f"k{i:07d}",
            "title": f"Title {i}",
            "text": " ".join(rng.choice(words, 30)),
            "embedding": vector,
            **state,
        }
        for i, vector in enumerate(vectors(contents))
    ]
    return cue_rows, content_rows


def identity(dim: int) -> EmbedderIdentity:
    return EmbedderIdentity("model", "synthetic", dim, True)


def build(args: argparse.Namespace, threaded: bool) -> tuple[LiveIndex, dict[str, float]]:
    """A full build of the generated rows, timed per index (``threaded``: as a cold
    reader's bulk build; else on one thread whatever the size)."""
    cue_rows, content_rows = rows(args.cues, args.contents, args.dim)
    index = LiveIndex.empty(NS, SCOPES, identity(args.dim))
    saved = cue_search.BULK_THREADS_MIN
    cue_search.BULK_THREADS_MIN = args.bulk_min if threaded else sys.maxsize
    try:
        timings = {}
        for name, step in (
            ("cues", lambda: index.cues.add(cue_rows, bulk=True)),
            ("passages", lambda: index.passages.apply(content_rows, full=True)),
        ):
            wall, cpu = time.perf_counter(), time.process_time()
            step()
            timings[f"{name}_s"] = time.perf_counter() - wall
            timings[f"{name}_cpu_s"] = time.process_time() - cpu
            say(f"{'threaded' if threaded else 'one-thread'} build of the {name}: {timings}")
    finally:
        cue_search.BULK_THREADS_MIN = saved
    index.uid, index.version = UID, 1
    return index, timings


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def agreement(one: LiveIndex, other: LiveIndex, queries: int, dim: int) -> dict[str, float]:
    """How alike dense cue searches are in two graphs of the same vectors: the share of
    searches finding the same cues with the same similarities, and the mean share of
    one search's cues the other finds too."""
    rng = np.random.default_rng(5)
    mask = one.cues.live.copy()
    same, shared = 0, 0.0
    for vector in rng.normal(size=(queries, dim)).astype(np.float32):
        vector /= np.linalg.norm(vector)
        first, second = one.cues.dense(vector, EF, mask), other.cues.dense(vector, EF, mask)
        same += first == second
        shared += len(first.keys() & second.keys()) / max(1, len(first))
    return {"identical": same / queries, "overlap": shared / queries}


def space() -> dict[str, Any]:
    return {"uid": UID, "version": 1, "dropped_floor": 0, "purged_v": 0}


def load_once(root: Path, dim: int) -> dict[str, float]:
    """One reader's load of the copy under ``root`` (this process's first), and the
    seal check's share of it."""
    where = next(p for p in root.glob("*/*/*") if p.is_dir())
    start = time.perf_counter()
    assert index_files._signed(where)
    seal = time.perf_counter() - start
    start = time.perf_counter()
    loaded = index_files.load(space(), NS, SCOPES, identity(dim), root)
    total = time.perf_counter() - start
    assert loaded is not None and len(loaded.cues) > 0
    return {"load_s": total, "seal_s": seal}


def save_copy(index: LiveIndex, root: Path) -> float:
    start = time.perf_counter()
    assert index_files.save(index, root) is not None
    return time.perf_counter() - start


def child(tree: str, home: Path, *extra: str) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=tree, MRAGENT_HOME=str(home))
    done = subprocess.run(
        [sys.executable, __file__, *extra], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cues", type=int, default=100_000)
    parser.add_argument("--contents", type=int, default=20_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--loads", type=int, default=5)
    # (getattr: a --before tree may predate the threshold; it only saves and loads)
    bulk_min = getattr(cue_search, "BULK_THREADS_MIN", 0)
    parser.add_argument("--bulk-min", type=int, default=bulk_min)
    parser.add_argument("--before", help="a checkout of the revision to compare the copy with")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/index_build"))
    parser.add_argument("--save-only", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--load-only", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.load_only:  # a fresh process: a new reader loading the copy
        print(json.dumps(load_once(args.load_only, args.dim)))
        return 0
    if args.save_only:  # this tree's copy of the same rows, built on one thread
        cue_rows, content_rows = rows(args.cues, args.contents, args.dim)
        index = LiveIndex.empty(NS, SCOPES, identity(args.dim))
        index.cues.add(cue_rows)
        index.passages.apply(content_rows, full=True)
        index.uid, index.version = UID, 1
        print(json.dumps({"save_s": save_copy(index, args.save_only)}))
        return 0

    sizes = ["--cues", str(args.cues), "--contents", str(args.contents), "--dim", str(args.dim)]
    report: dict[str, Any] = {"cues": args.cues, "contents": args.contents, "dim": args.dim}
    report["cpus"] = len(os.sched_getaffinity(0))
    one, report["build_one_thread"] = build(args, threaded=False)
    many, report["build_threaded"] = build(args, threaded=True)
    report["bulk_min"] = args.bulk_min
    report["threads"] = cue_search.insert_threads(cue_search.BULK_THREADS_MIN, bulk=True)
    report["dense_hits_alike"] = agreement(one, many, args.queries, args.dim)
    del many
    with tempfile.TemporaryDirectory(prefix="index-build-") as tmp:
        homes = {"after": Path(tmp) / "after"}
        if args.before:
            homes["before"] = Path(tmp) / "before"
        for home in homes.values():
            home.mkdir(mode=0o700)
        os.environ["MRAGENT_HOME"] = str(homes["after"])
        report["save_after_s"] = save_copy(one, homes["after"] / "index")
        del one
        trees = {"after": str(Path(__file__).resolve().parent.parent)}
        if args.before:
            trees["before"] = str(Path(args.before).resolve())
            saved = child(trees["before"], homes["before"], *sizes, "--save-only",
                          str(homes["before"] / "index"))  # fmt: skip
            report["save_before_s"] = saved["save_s"]
        say(f"copies saved: {report}")
        loads: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
        for _ in range(args.loads):
            for name, tree in trees.items():
                loads[name].append(
                    child(tree, homes[name], *sizes, "--load-only", str(homes[name] / "index"))
                )
        sizes_on_disk = {
            name: sum(p.stat().st_size for p in (homes[name] / "index").rglob("*") if p.is_file())
            for name in trees
        }
    for name, runs in loads.items():
        report[f"load_{name}"] = {
            "p50_s": statistics.median(r["load_s"] for r in runs),
            "seal_p50_s": statistics.median(r["seal_s"] for r in runs),
            "runs": runs,
            "bytes": sizes_on_disk[name],
        }
    report["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps({k: v for k, v in report.items() if not k.startswith("load_")}, indent=2))
    for name in loads:
        figures = report[f"load_{name}"]
        print(f"copy load {name}: p50 {figures['p50_s']:.3f} s (seal check "
              f"{figures['seal_p50_s']:.3f} s), {figures['bytes'] / 1e6:.0f} MB")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
