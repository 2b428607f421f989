"""The ingest's check pass alone: its time and the client's peak memory, trees side by side.

Usage:
    python benchmarks/ingest_check.py [--contents 1000000 | --corpus FILE]
        [--rounds 1] [--baseline DIR] [--out FILE.json]

The check pass (:meth:`mragent.memory.ingest_source.CorpusSource.check`) reads a
corpus file twice before anything is written: it validates every record, fits the
extractor, and counts the corpus statistics link weights come from. Its memory is
what an ingest holds before its first batch, the floor of the ingest's peak. Each
run is a fresh process that does this pass on the file and reports its wall and CPU
seconds, its peak RSS (``VmHWM``) and the size of the statistics. With
``--baseline`` (another source tree, e.g. ``git worktree add DIR COMMIT``) the two
trees run in turn, round by round, so machine noise hits both alike. No database is
needed. ``--contents`` writes the generated corpus of ``benchmarks/ingest_stream.py``
to a temporary file (once); ``--corpus`` reads one given.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ingest_stream import source_trees, write_corpus

_CHECK = """
import json, resource, sys, time
from pathlib import Path
from mragent.core.extract import RuleExtractor
from mragent.memory.ingest_source import CorpusSource
try:  # as mragent ingest does, in a tree that has it
    from mragent.core.heap import hold_mmap_threshold
    hold_mmap_threshold()
except ImportError:
    pass

start, cpu = time.perf_counter(), time.process_time()
source = CorpusSource.of_file(Path(sys.argv[1]), 500)
scan = source.check(RuleExtractor())
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
peak = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({
    "seconds": seconds, "cpu_s": cpu, "peak_rss_mb": int(peak.split()[1]) / 1024,
    "contents": scan.count, "tags": source.stats.tags,
}))
"""


def run_check(tree: Path, corpus: Path) -> dict[str, Any]:
    """One check pass of ``corpus`` in a fresh process running the code of ``tree``."""
    done = subprocess.run(
        [sys.executable, "-c", _CHECK, str(corpus)],
        env={**os.environ, "PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise SystemExit(f"check pass failed in {tree}: {done.stderr.strip()}")
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--contents", type=int, default=1_000_000)
    source.add_argument("--corpus", type=Path, help="a corpus file (instead of generating)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--baseline", type=Path, help="another mragent source tree")
    parser.add_argument("--out", type=Path, help="write the runs and medians as JSON")
    args = parser.parse_args()
    trees = source_trees(args.baseline)
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory(prefix="mragent-check-") as scratch:
        corpus = args.corpus
        if corpus is None:
            corpus = Path(scratch) / "corpus.json"
            print(f"writing a generated corpus of {args.contents} contents", flush=True)
            write_corpus(corpus, args.contents)
        for round_ in range(args.rounds):
            order = list(trees) if round_ % 2 == 0 else list(reversed(trees))
            for name in order:
                run = run_check(trees[name], corpus)
                runs[name].append(run)
                print(
                    f"round {round_ + 1} {name:>8}: {run['contents']} contents checked in "
                    f"{run['seconds']:6.1f} s ({run['cpu_s']:6.1f} s CPU), "
                    f"peak RSS {run['peak_rss_mb']:6.0f} MB, {run['tags']} tags",
                    flush=True,
                )
    medians = {
        name: {key: statistics.median(run[key] for run in items) for key in items[0]}
        for name, items in runs.items()
    }
    if "baseline" in medians:
        for key in ("seconds", "cpu_s", "peak_rss_mb"):
            medians["this"][f"{key}_ratio"] = medians["this"][key] / medians["baseline"][key]
        print("this / baseline at the median:", {
            key: round(value, 3) for key, value in medians["this"].items() if key.endswith("_ratio")
        })  # fmt: skip
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"runs": runs, "medians": medians}, indent=2) + "\n")


if __name__ == "__main__":
    main()
