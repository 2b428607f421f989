"""Hook latency: ``mragent hook recall`` end to end on the MuSiQue pool.

Usage:
    python benchmarks/hook_latency.py [--prompts 40] [--db URL] [--out FILE]

Ingests the pooled MuSiQue corpus (read from ``../shared/datasets/``, never
copied) into a namespace of its own unless it is there already, then times, per
prompt (a MuSiQue question as a UserPromptSubmit event on stdin), the wall time
of a fresh process, in an interleaved order so machine noise hits all alike:

* ``cold``: ``mragent hook recall`` with no server (imports, opens the store,
  builds the reader, reconstructs);
* ``forwarded``: ``mragent hook recall`` forwarding to ``mragent hook serve``;
* ``curl``: ``curl --unix-socket`` to the same server (no Python started);
* ``served``: the server's own answer time, timed inside this process on an
  open session (the floor every form above pays).

Prints p50 and p95 per form and writes them as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mragent import open_memory
from mragent.apps.bench import ensure_ingested
from mragent.apps.datasets import dataset_namespace, load_dataset
from mragent.core.store import open_store
from mragent.integrations.hooks import recall_context

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "datasets"
_MAIN = "from mragent.cli import main; main()"


def _event(prompt: str) -> str:
    return json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": prompt})


def _timed(cmd: list[str], stdin: str, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=env, check=True)
    return (time.perf_counter() - start) * 1000, done.stdout


def _wait_for(path: Path, server: subprocess.Popen[str]) -> None:
    deadline = time.time() + 300
    while not path.exists():
        if server.poll() is not None or time.time() > deadline:
            reason = server.stderr.read() if server.stderr else ""
            raise SystemExit(f"the hook server did not start: {reason}")
        time.sleep(0.2)


def _stats(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "n": len(ordered),
        "p50_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=40)
    parser.add_argument("--db", help="database URL (default: the embedded FalkorDB)")
    parser.add_argument("--questions", type=Path, default=DATA / "musique_100.json")
    parser.add_argument("--pool", type=Path, default=DATA / "musique_100_corpus.json")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/hook_latency.json")
    args = parser.parse_args()

    corpus = load_dataset("musique", args.questions, args.pool)
    ns = dataset_namespace("musique", args.questions, args.pool)
    with open_store(args.db) as store:
        ensure_ingested(store, corpus, ns)
    prompts = [q.question for q in corpus.questions][: args.prompts]

    sock = Path(tempfile.mkdtemp(dir="/tmp")) / "hook.sock"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if args.db:
        env["MRAGENT_DB"] = args.db
    base = [sys.executable, "-c", _MAIN, "hook", "recall", "--ns", ns]
    server = subprocess.Popen(
        [sys.executable, "-c", _MAIN, "hook", "serve", "--ns", ns, "--socket", str(sock)],
        env=env, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    times: dict[str, list[float]] = {"cold": [], "forwarded": [], "curl": [], "served": []}
    try:
        _wait_for(sock, server)
        curl = shutil.which("curl")
        with open_memory(ns, db=args.db) as session:
            recall_context(session, "warm up")
            for prompt in prompts:
                event = _event(prompt)
                cold, cold_out = _timed([*base, "--socket", str(sock) + ".none"], event, env)
                warm, warm_out = _timed([*base, "--socket", str(sock)], event, env)
                if cold_out != warm_out:
                    raise SystemExit(f"the server and the cold CLI differ on {prompt!r}")
                times["cold"].append(cold)
                times["forwarded"].append(warm)
                if curl:
                    url = "http://mragent/recall"
                    cmd = [curl, "-sf", "--unix-socket", str(sock), "--data-binary", "@-", url]
                    times["curl"].append(_timed(cmd, event, env)[0])
                start = time.perf_counter()
                recall_context(session, prompt)
                times["served"].append((time.perf_counter() - start) * 1000)
    finally:
        server.terminate()
        server.wait(timeout=30)
    report = {
        "namespace": ns,
        "contents": len(corpus.contents),
        "prompts": len(prompts),
        "load_average": os.getloadavg(),
        "cpus": os.cpu_count(),
        **{form: _stats(samples) for form, samples in times.items() if samples},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    for form, samples in times.items():
        if samples:
            got = _stats(samples)
            print(f"{form:>10}: p50 {got['p50_ms']:7.1f} ms   p95 {got['p95_ms']:7.1f} ms")


if __name__ == "__main__":
    main()
