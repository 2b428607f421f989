"""What the durability promise costs: remember latency and ingest throughput on the
embedded FalkorDB with ``appendfsync always`` (fsync before every reply: an
acknowledged write survives power loss) beside ``appendfsync everysec`` (what it ran
before: up to a second of acknowledged writes lost).

Usage:
    python benchmarks/durability.py [--rounds 5] [--remembers 100] [--contents 2000]
        [--json out.json]

One embedded server in a temporary home serves both settings, switched between
rounds with ``CONFIG SET appendfsync`` (the order alternating), so both see the
same machine load. Each round times ``--remembers`` single remembers (one audit
record and one database statement each) and one ingest of ``--contents``
synthetic contents into a fresh namespace.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

MODES = ("everysec", "always")


def _round(store: Any, audit: Any, mode: str, number: int, args: argparse.Namespace) -> dict:
    from mragent.apps.synthetic import generate
    from mragent.memory.ingest import ingest
    from mragent.memory.principal import Principal
    from mragent.memory.writer import MemoryWriter

    ana = Principal("human", "ana")
    mem = MemoryWriter(store, f"remember-{mode}-{number}", audit)
    mem.remember("The first write stamps the namespace.", principal=ana)
    latencies = []
    for n in range(args.remembers):
        start = time.perf_counter()
        mem.remember(f"Pier {n} of round {number} opens at {mode}.", principal=ana)
        latencies.append((time.perf_counter() - start) * 1000)
    corpus = generate(args.contents, seed=number)
    start = time.perf_counter()
    ingest(store, corpus, f"ingest-{mode}-{number}", principal=ana, audit=audit)
    seconds = time.perf_counter() - start
    return {"remember_ms": latencies, "ingest_per_s": args.contents / seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--remembers", type=int, default=100)
    parser.add_argument("--contents", type=int, default=2000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    import redis

    from mragent.core.store import embedded, open_store
    from mragent.memory.audit import AuditLog

    home = Path(tempfile.mkdtemp(prefix="mragent-durability-"))
    server = embedded.ensure_running(home)
    client = redis.Redis(port=server.port, password=server.password)
    results: dict[str, dict[str, list[float]]] = {
        m: {"remember_ms": [], "ingest_per_s": []} for m in MODES
    }
    try:
        audit = AuditLog(home / "audit.jsonl")
        with open_store(None, home=home) as store:
            for number in range(args.rounds):
                order = MODES if number % 2 == 0 else MODES[::-1]
                for mode in order:
                    client.config_set("appendfsync", mode)
                    got = _round(store, audit, mode, number, args)
                    results[mode]["remember_ms"].extend(got["remember_ms"])
                    results[mode]["ingest_per_s"].append(got["ingest_per_s"])
                    print(f"round {number} {mode:8s} remember p50 "
                          f"{statistics.median(got['remember_ms']):.2f} ms, ingest "
                          f"{got['ingest_per_s']:.0f} contents/s", flush=True)  # fmt: skip
    finally:
        client.close()
        embedded.stop(home)
    summary = {
        mode: {
            "remember_p50_ms": round(statistics.median(values["remember_ms"]), 2),
            "remember_p95_ms": round(statistics.quantiles(values["remember_ms"], n=20)[18], 2),
            "ingest_contents_per_s": round(statistics.median(values["ingest_per_s"])),
        }
        for mode, values in results.items()
    }
    print(json.dumps(summary, indent=2))
    if args.json:
        args.json.write_text(json.dumps({"args": vars(args) | {"json": str(args.json)},
                                         "summary": summary}, indent=2) + "\n")  # fmt: skip


if __name__ == "__main__":
    main()
