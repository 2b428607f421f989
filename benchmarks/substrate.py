"""Substrate benchmark: ingest throughput and traversal latency, engines side by side.

Usage:
    python benchmarks/substrate.py [--contents 10000] [--neo4j bolt://127.0.0.1:7687]

Ingests the same generated memory into the embedded FalkorDB and (when reachable)
Neo4j, then times the traversal query at depth 1, 2 and 3 from the same entry
cues on each, interleaving engines so machine noise hits both alike.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from mragent.apps.synthetic import generate
from mragent.core.errors import BackendUnavailable
from mragent.core.genome import Genome
from mragent.core.retrieval.reconstruct import traverse
from mragent.core.store import open_store
from mragent.memory.audit import AuditLog
from mragent.memory.ingest import ingest
from mragent.memory.principal import BENCH
from mragent.memory.reader import MemoryReader


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contents", type=int, default=10_000)
    parser.add_argument("--neo4j", default="bolt://127.0.0.1:7687")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    corpus = generate(args.contents)
    ns = f"bench-substrate-{args.contents}"
    stores = {"falkordb": open_store(None)}
    try:
        stores["neo4j"] = open_store(args.neo4j)
    except BackendUnavailable as exc:
        print(f"neo4j skipped: {exc}")
    memories = {}
    for engine, store in stores.items():
        store.run("delete_namespace", {"ns": ns})
        start = time.perf_counter()
        report = ingest(store, corpus, ns, principal=BENCH, audit=AuditLog())
        elapsed = time.perf_counter() - start
        print(
            f"{engine:9s} ingest {args.contents} contents in {elapsed:6.1f} s = "
            f"{args.contents / elapsed:7.0f} contents/s  {report.nodes_after}"
        )
        memories[engine] = MemoryReader(store, ns)
    rng = random.Random(1)
    questions = [q.question for q in corpus.questions]
    samples = [rng.choice(questions) for _ in range(args.queries)]
    for depth in (1, 2, 3):
        genome = Genome(traversalDepth=depth)
        cues = {e: [memories[e].candidates(q, genome)[0] for q in samples] for e in stores}
        # Cue ids differ per engine (random ids); the cue texts chosen are the same.
        times: dict[str, list[float]] = {e: [] for e in stores}
        for i in range(len(samples)):
            for engine, store in stores.items():
                t0 = time.perf_counter()
                memory = memories[engine]
                traverse(store, ns, memory.view, cues[engine][i], genome)
                times[engine].append((time.perf_counter() - t0) * 1000)
        line = [f"depth {depth}:"]
        for engine, values in times.items():
            values.sort()
            line.append(
                f"{engine} p50 {statistics.median(values):6.2f} ms "
                f"p95 {values[int(0.95 * len(values)) - 1]:6.2f} ms"
            )
        if len(times) == 2:
            ratio = statistics.median(times["neo4j"]) / statistics.median(times["falkordb"])
            line.append(f"neo4j/falkordb p50 ratio {ratio:.2f}")
        print("  ".join(line))
    for store in stores.values():
        store.close()


if __name__ == "__main__":
    main()
