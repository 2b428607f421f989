"""Reconstruction latency with a real model beside the hashing embedder, interleaved.

Usage:
    python benchmarks/dense_latency.py --questions musique_100.json --ns NS_HASHING
        --ns NS_MODEL [--dataset musique] [--rounds 3] [--db URL] [--json out.json]

Each namespace (already ingested, e.g. by ``mragent bench --ns``) is read by its own
warm reader in this one process, with the default genome; every question is answered
by each reader in turn, the order alternating, so both share the machine's load. The
question's embedding is reported as its own stage; "reconstruction" is the rest
(cue and passage search, the traversal's round trip, synthesis). The ratio of p50s
is the figure to read: absolute times depend on the shared machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from mragent.core.genome import PRESETS
from mragent.core.store import open_store
from mragent.memory.reader import MemoryReader

STAGES = ("embed", "cue_search", "traversal", "synthesis")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ns", action="append", required=True, help="namespace (twice or more)")
    parser.add_argument("--questions", type=Path, required=True, help="dataset file")
    parser.add_argument("--dataset", default="musique", choices=("musique", "hotpotqa"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--db", default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    from mragent.apps.datasets import load_dataset

    questions = [q.question for q in load_dataset(args.dataset, args.questions, None).questions]
    genome = PRESETS["default"]
    times: dict[str, dict[str, list[float]]] = {ns: {} for ns in args.ns}
    with open_store(args.db) as store:
        readers = {ns: MemoryReader(store, ns) for ns in args.ns}
        for reader in readers.values():  # warm: the first answer loads what it needs
            reader.reconstruct(questions[0], genome)
        for round_ in range(args.rounds):
            for i, question in enumerate(questions):
                order = args.ns if (i + round_) % 2 == 0 else list(reversed(args.ns))
                for ns in order:
                    found = readers[ns].reconstruct(question, genome)
                    stages = {s: found.timings_ms.get(s, 0.0) for s in STAGES}
                    stages["reconstruction"] = found.latency_ms - stages["embed"]
                    for stage, value in stages.items():
                        times[ns].setdefault(stage, []).append(value)
        embedders = {ns: readers[ns].identity.as_text() for ns in args.ns}
    report = {
        "genome": "default",
        "questions": len(questions),
        "rounds": args.rounds,
        "p50_ms": {
            ns: {stage: statistics.median(values) for stage, values in stages.items()}
            for ns, stages in times.items()
        },
        "embedders": embedders,
    }
    base = report["p50_ms"][args.ns[0]]["reconstruction"]  # type: ignore[index]
    report["reconstruction_p50_ratio"] = {
        ns: report["p50_ms"][ns]["reconstruction"] / base  # type: ignore[index]
        for ns in args.ns
    }
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
