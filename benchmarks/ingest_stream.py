"""Streaming ingest benchmark: `mragent ingest` of a generated corpus file, engines side by side.

Usage:
    python benchmarks/ingest_stream.py [--contents 100000] [--neo4j bolt://127.0.0.1:7687]
        [--rounds 1] [--engines falkordb,neo4j]

Writes a generated corpus (:func:`mragent.apps.synthetic.generate`) to a file,
then runs ``mragent ingest`` on it in a new process per engine, alternating
engines round by round, into a fresh namespace each time. For each run it
prints the wall time, contents per second and the peak RSS of the ingesting
process (``wait4``); for the embedded FalkorDB also the server's peak RSS
(``VmHWM``), which holds the graph itself. Neo4j needs ``MRAGENT_DB_PASSWORD``
(and a reachable server) or is skipped.
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

from mragent.apps.synthetic import generate
from mragent.core.errors import BackendUnavailable
from mragent.core.store import embedded, open_store


def write_corpus(path: Path, contents: int) -> None:
    """The generated corpus as a corpus file (contents only)."""
    corpus = generate(contents)
    records = [{"id": c.key, "text": c.text, "title": c.title} for c in corpus.contents]
    path.write_text(json.dumps({"contents": records}), encoding="utf-8")


def run_ingest(corpus: Path, ns: str, db: str | None, env: dict[str, str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (bytes) of one ``mragent ingest`` process."""
    # The installed command, beside the interpreter running this script.
    command = [str(Path(sys.executable).parent / "mragent"), "ingest", str(corpus), "--ns", ns]
    command += ["--principal", "system:bench"]
    if db:
        command += ["--db", db]
    start = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    output = proc.stdout.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"ingest failed (exit {proc.returncode}): {output.strip()}")
    print("   ", output.strip().splitlines()[-1])
    return elapsed, usage.ru_maxrss * 1024


def server_peak(home: Path) -> str:
    """The embedded FalkorDB server's peak RSS, from /proc."""
    server = embedded.status(home)
    if server is None:
        return "server not running"
    for line in Path(f"/proc/{server.pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return f"server peak RSS {int(line.split()[1]) / 1024:6.0f} MB"
    return "server peak RSS unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contents", type=int, default=100_000)
    parser.add_argument("--neo4j", default="bolt://127.0.0.1:7687")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--engines", default="falkordb,neo4j", help="Comma-separated.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mragent-ingest-bench-") as tmp:
        home = Path(tmp) / "home"
        env = {**os.environ, "MRAGENT_HOME": str(home)}
        corpus = Path(tmp) / "corpus.json"
        write_corpus(corpus, args.contents)
        print(f"corpus: {args.contents} contents, {corpus.stat().st_size / 1e6:.1f} MB")
        wanted = args.engines.split(",")
        engines: dict[str, str | None] = {"falkordb": None} if "falkordb" in wanted else {}
        try:
            if "neo4j" in wanted:
                open_store(args.neo4j).close()
                engines["neo4j"] = args.neo4j
        except BackendUnavailable as exc:
            print(f"neo4j skipped: {exc}")
        try:
            for round_ in range(args.rounds):
                for engine, db in engines.items():
                    ns = f"bench-ingest-{args.contents}-{round_}"
                    elapsed, peak = run_ingest(corpus, ns, db, env)
                    extra = f"  {server_peak(home)}" if db is None else ""
                    print(
                        f"{engine:9s} round {round_}: {args.contents} contents in "
                        f"{elapsed:6.1f} s = {args.contents / elapsed:6.0f} contents/s  "
                        f"client peak RSS {peak / 2**20:6.0f} MB{extra}"
                    )
                    with open_store(db, home=home) as store:
                        store.run("delete_namespace", {"ns": ns})
        finally:
            embedded.stop(home)


if __name__ == "__main__":
    main()
