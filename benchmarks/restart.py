"""How long the embedded FalkorDB takes to come back after an ingest its append-only
file still holds: writes logged as their effects (``EFFECTS_THRESHOLD 0``, how
the embedded server runs) beside writes logged as their queries (FalkorDB's
default threshold, set at run time).

Usage:
    python benchmarks/restart.py [--contents 20000] [--modes effects,queries]
        [--json out.json]

For each mode, in a temporary home of its own: start the embedded server, pause
its append-only file's rewrites (as a bulk load does, and as every write between
two rewrites is), ingest ``--contents`` generated contents, stop the server,
then time opening a store on it again, which waits while the server replays its
log, and check the namespace's counts against the ones written. A logged query
is replayed before the server has built its indexes, so each MERGE scans its
whole label: the replay grows with the square of the graph.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

THRESHOLDS = {"effects": 0, "queries": 300}  # 300 µs per change: FalkorDB's default


def _run(mode: str, contents: int, root: Path) -> dict[str, Any]:
    import redis

    from mragent.apps.synthetic import generate
    from mragent.core.store import embedded, open_store
    from mragent.memory.audit import AuditLog
    from mragent.memory.ingest import ingest, namespace_stats
    from mragent.memory.principal import BENCH

    home = root / mode
    home.mkdir()
    server = embedded.ensure_running(home)
    try:
        client = redis.Redis(port=server.port, password=server.password)
        client.execute_command("GRAPH.CONFIG", "SET", "EFFECTS_THRESHOLD", THRESHOLDS[mode])
        client.config_set("auto-aof-rewrite-percentage", 0)
        client.close()
        audit = AuditLog(home / "audit.jsonl")
        with open_store(None, home=home) as store:
            started = time.perf_counter()
            ingest(store, generate(contents, seed=7), "restart", principal=BENCH, audit=audit)
            ingest_s = time.perf_counter() - started
            written = namespace_stats(store, "restart")
        log = server.data_dir / "appendonlydir"
        log_mb = sum(path.stat().st_size for path in log.glob("*.aof")) / 1e6
        embedded.stop(home)
        print(f"  {mode}: ingested in {ingest_s:.1f} s, log {log_mb:.0f} MB; restart", flush=True)
        started = time.perf_counter()
        with open_store(None, home=home) as store:
            restart_s = time.perf_counter() - started
            replayed = namespace_stats(store, "restart")
    finally:
        embedded.stop(home)
    if replayed != written:
        raise SystemExit(f"{mode}: the restart replayed {replayed}, not {written}")
    return {"mode": mode, "ingest_s": ingest_s, "log_mb": log_mb, "restart_s": restart_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--contents", type=int, default=20000, help="contents to ingest")
    parser.add_argument(
        "--modes", default="effects,queries", help="comma-separated: effects, queries"
    )
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args()
    modes = args.modes.split(",")
    unknown = set(modes) - THRESHOLDS.keys()
    if unknown:
        parser.error(f"--modes: unknown {sorted(unknown)}; choose from {sorted(THRESHOLDS)}")
    results = []
    with tempfile.TemporaryDirectory(prefix="mragent-restart-") as root:
        os.environ["MRAGENT_HOME"] = root  # nothing reaches the user's own home
        for mode in modes:
            results.append(_run(mode, args.contents, Path(root)))
    for row in results:
        print(
            f"{row['mode']:8} {args.contents} contents: ingest {row['ingest_s']:6.1f} s  "
            f"log {row['log_mb']:5.0f} MB  restart {row['restart_s']:7.1f} s"
        )
    if args.json:
        args.json.write_text(json.dumps({"contents": args.contents, "results": results}, indent=2))


if __name__ == "__main__":
    main()
