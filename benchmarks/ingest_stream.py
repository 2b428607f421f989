"""Streaming ingest benchmark: `mragent ingest` of a generated corpus file, engines side by side.

Usage:
    python benchmarks/ingest_stream.py [--contents 100000] [--neo4j bolt://127.0.0.1:7687]
        [--rounds 1] [--engines falkordb,neo4j] [--baseline DIR] [--out FILE.json]

Writes a generated corpus (:func:`mragent.apps.synthetic.generate`) to a file,
then runs ``mragent ingest`` on it in a new process per engine, alternating
engines (and, with ``--baseline``, this source tree and another one, for
instance a checkout of an older commit) round by round, into a fresh namespace
each time, so machine noise hits every case alike. Each embedded FalkorDB run
gets a server of its own, started by the ingest and stopped after it, so its
figures are that run's alone. For each run it prints the wall time, contents
per second, the CPU seconds of the ingesting process and of the server (the
embedded one: its own and its reaped children's, the AOF rewrites and
snapshots; CPU time is what a loaded machine does not inflate), and the peak
RSS of both (``wait4``, ``VmHWM``; the corpus is generated in a process of its own,
since a child inherits its parent's RSS as the floor of its ``wait4`` peak). Neo4j
needs ``MRAGENT_DB_PASSWORD`` (and a reachable server) or is skipped.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mragent.apps.synthetic import generate
from mragent.core.errors import BackendUnavailable
from mragent.core.store import embedded, open_store

THIS_TREE = Path(__file__).resolve().parent.parent
# The CLI entry point, importable from whichever tree PYTHONPATH names.
ENTRY = "from mragent.cli.app import main; main()"


def write_corpus(path: Path, contents: int) -> None:
    """The generated corpus as a corpus file (contents only)."""
    corpus = generate(contents)
    records = [{"id": c.key, "text": c.text, "title": c.title} for c in corpus.contents]
    path.write_text(json.dumps({"contents": records}), encoding="utf-8")


def source_trees(baseline: Path | None) -> dict[str, Path]:
    """The trees a run compares: this checkout, and ``baseline`` when given."""
    trees = {"this": THIS_TREE}
    if baseline:
        trees["baseline"] = baseline.resolve()
    return trees


def run_ingest(tree: Path, corpus: Path, ns: str, db: str | None, env: dict[str, str]) -> dict:
    """Wall seconds, CPU seconds and peak RSS (MB) of one ``mragent ingest`` process
    running the code of ``tree``."""
    command = [sys.executable, "-c", ENTRY, "ingest", str(corpus), "--ns", ns]
    command += ["--principal", "system:bench"]
    if db:
        command += ["--db", db]
    start = time.perf_counter()
    env = {**env, "PYTHONPATH": str(tree)}
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    output = proc.stdout.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code:
        raise SystemExit(f"ingest failed (exit {code}): {output.strip()}")
    print("   ", output.strip().splitlines()[-1])
    return {
        "seconds": elapsed,
        "client_cpu_s": usage.ru_utime + usage.ru_stime,
        "client_peak_rss_mb": usage.ru_maxrss / 1024,
    }


def server_figures(home: Path) -> dict[str, float]:
    """The embedded server's CPU seconds (its own and its reaped children's) and peak
    RSS (MB), from /proc."""
    server = embedded.status(home)
    if server is None:
        return {}
    fields = Path(f"/proc/{server.pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    figures = {"server_cpu_s": ticks / os.sysconf("SC_CLK_TCK")}
    for line in Path(f"/proc/{server.pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            figures["server_peak_rss_mb"] = int(line.split()[1]) / 1024
    return figures


def _line(label: str, contents: int, run: dict[str, Any]) -> str:
    text = (
        f"{label}: {contents} contents in {run['seconds']:6.1f} s = "
        f"{run['contents_per_s']:6.0f} contents/s  client {run['client_cpu_s']:6.1f} s CPU, "
        f"peak RSS {run['client_peak_rss_mb']:5.0f} MB"
    )
    if "server_cpu_s" in run:
        text += (
            f"  server {run['server_cpu_s']:6.1f} s CPU, "
            f"peak RSS {run['server_peak_rss_mb']:5.0f} MB"
        )
    return text


def _summary(runs: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, float]]:
    """Medians per case, and each case's ratio to its baseline where there is one."""
    medians = {
        case: {key: statistics.median(run[key] for run in items) for key in items[0]}
        for case, items in runs.items()
    }
    for case, figures in medians.items():
        base = medians.get(case.replace("this", "baseline", 1)) if case.startswith("this") else None
        if base:
            for key in ("contents_per_s", "client_cpu_s", "server_cpu_s"):
                if key in figures and key in base:
                    figures[f"{key}_ratio"] = figures[key] / base[key]
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contents", type=int, default=100_000)
    parser.add_argument("--neo4j", default="bolt://127.0.0.1:7687")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--engines", default="falkordb,neo4j", help="Comma-separated.")
    parser.add_argument("--baseline", type=Path, help="another mragent source tree")
    parser.add_argument("--out", type=Path, help="write the runs and medians as JSON")
    args = parser.parse_args()
    trees = source_trees(args.baseline)
    runs: dict[str, list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="mragent-ingest-bench-") as tmp:
        corpus = Path(tmp) / "corpus.json"
        # In a process of its own: a child started by exec inherits its parent's RSS
        # as the start of its peak (ru_maxrss), so the parent must stay small.
        writer = multiprocessing.get_context("spawn").Process(
            target=write_corpus, args=(corpus, args.contents)
        )
        writer.start()
        writer.join()
        if writer.exitcode:
            raise SystemExit(f"writing the corpus failed (exit {writer.exitcode})")
        print(f"corpus: {args.contents} contents, {corpus.stat().st_size / 1e6:.1f} MB")
        wanted = args.engines.split(",")
        engines: dict[str, str | None] = {"falkordb": None} if "falkordb" in wanted else {}
        try:
            if "neo4j" in wanted:
                open_store(args.neo4j).close()
                engines["neo4j"] = args.neo4j
        except BackendUnavailable as exc:
            print(f"neo4j skipped: {exc}")
        for round_ in range(args.rounds):
            for engine, db in engines.items():
                for name, tree in trees.items():
                    home = Path(tmp) / f"home-{engine}-{name}-{round_}"
                    env = {**os.environ, "MRAGENT_HOME": str(home)}
                    ns = f"bench-ingest-{args.contents}-{round_}"
                    try:
                        run = run_ingest(tree, corpus, ns, db, env)
                        run["contents_per_s"] = args.contents / run["seconds"]
                        if db is None:
                            run.update(server_figures(home))
                        runs.setdefault(f"{name} {engine}", []).append(run)
                        print(_line(f"{name:8s} {engine:9s} round {round_}", args.contents, run))
                        if db is not None:
                            with open_store(db, home=home) as store:
                                store.run("delete_namespace", {"ns": ns})
                    finally:
                        embedded.stop(home)
    summary = _summary(runs)
    for case, figures in summary.items():
        ratios = {k: round(v, 2) for k, v in figures.items() if k.endswith("_ratio")}
        print(f"median {case}: {figures['contents_per_s']:.0f} contents/s {ratios or ''}")
    if args.out:
        report = {"contents": args.contents, "command": sys.argv, "runs": runs, "median": summary}
        args.out.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
