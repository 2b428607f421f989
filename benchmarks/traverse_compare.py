"""Before/after: this checkout's traversal against another checkout's, interleaved.

Usage:
    python benchmarks/traverse_compare.py --before /path/to/other/checkout/cypher
        [--sizes 10000 100000] [--engines falkordb neo4j] [--neo4j bolt://127.0.0.1:7687]
        [--neo4j-max 10000] [--queries 40] [--home DIR]
        [--out benchmarks/results/traverse-compare.json]

Measures ``traverse.cypher`` as this checkout renders it ("after") and as the query
files under ``--before`` render it ("before") on the namespaces ``benchmarks/scale.py``
ingested (``bench-scale-<size>``; run it with ``--ingest-only`` first). For every
question the entry candidates are computed once; then, depth by depth, the two forms
run back to back on the same parameters (their order alternating), so machine noise
hits both alike; their rows are compared too, and any difference is reported. Round
trip p50/p95 by depth and case, the ratio after/before of the medians, and on FalkorDB
the server's own execution time.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from mragent.apps.synthetic import generate
from mragent.core import queries
from mragent.core.genome import Genome
from mragent.core.retrieval.reconstruct import rank_property, traverse_params
from mragent.core.store import open_store
from mragent.core.store.base import GraphStore
from mragent.core.store.falkordb_params import params_header
from mragent.memory.reader import MemoryReader

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scale import _summary  # the scale benchmark's p50/p95, shared

DEPTHS = (1, 2, 3, 4)


def before_template(cypher_dir: Path, engine: str) -> queries.QueryTemplate:
    """``traverse`` as the query files under ``cypher_dir`` define it for ``engine``."""
    own = queries.query_dir
    try:
        queries.query_dir = lambda: cypher_dir  # type: ignore[assignment]
        queries.clear_caches()
        return queries.get_query("traverse", engine)
    finally:
        queries.query_dir = own  # type: ignore[assignment]
        queries.clear_caches()


def _params(memory: MemoryReader, genome: Genome, question: str) -> dict[str, Any]:
    """The parameters ``reconstruct.traverse`` sends for this question."""
    found = memory.candidates(question, genome)[0]
    return traverse_params(memory.ns, memory.view, found, genome)


def _server_ms(store: GraphStore, text: str, params: dict[str, Any]) -> float | None:
    """FalkorDB's own execution time for one more run of the statement."""
    if store.capabilities.engine != "falkordb":
        return None
    reply = store._query(params_header(params) + text)  # type: ignore[attr-defined]
    # The reply ends with its statistics: "Query internal execution time: 0.3 milliseconds".
    timed = [line for line in reply[-1] if line.startswith(b"Query internal execution time")]
    return float(timed[0].split(b":")[1].split()[0])


def measure(store: GraphStore, size: int, before_dir: Path, queries_n: int) -> dict[str, Any]:
    """Interleaved before/after round trips by depth on one engine and size."""
    engine = store.capabilities.engine
    memory = MemoryReader(store, f"bench-scale-{size}")
    rng = random.Random(1)
    pool = generate(size).questions
    asked = [pool[rng.randrange(len(pool))].question for _ in range(queries_n)]
    forms = {
        "before": before_template(before_dir, engine),
        "after": store.template("traverse"),
    }
    out: dict[str, Any] = {}
    for depth in DEPTHS:
        genome = Genome(traversalDepth=depth)
        rank = rank_property(memory.view)
        texts = {name: t.render(depth=depth, rank=rank) for name, t in forms.items()}
        trips: dict[str, list[float]] = {name: [] for name in texts}
        server: dict[str, list[float]] = {name: [] for name in texts}
        differ = 0
        for i, question in enumerate(asked):
            params = _params(memory, genome, question)
            rows = {}
            order = list(texts) if i % 2 == 0 else list(texts)[::-1]
            for name in order:
                start = time.perf_counter()
                rows[name] = store._execute("traverse", texts[name], params)
                trips[name].append((time.perf_counter() - start) * 1000)
                ms = _server_ms(store, texts[name], params)
                if ms is not None:
                    server[name].append(ms)
            differ += rows["before"] != rows["after"]
        out[str(depth)] = {
            "round_trip": {name: _summary(v) for name, v in trips.items()},
            "server": {name: _summary(v) for name, v in server.items() if v},
            "ratio_p50": statistics.median(trips["after"]) / statistics.median(trips["before"]),
            "questions_with_different_rows": differ,
        }
        print(f"{engine}-{size} depth {depth}: {json.dumps(out[str(depth)])}", file=sys.stderr)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="another checkout's cypher/")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--engines", nargs="+", default=["falkordb"])
    parser.add_argument("--neo4j", default="bolt://127.0.0.1:7687")
    parser.add_argument("--neo4j-max", type=int, default=10_000, help="largest size on Neo4j")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--home", type=Path, default=None, help="embedded FalkorDB home")
    default_out = Path("benchmarks/results/traverse-compare.json")
    parser.add_argument("--out", type=Path, default=default_out)
    args = parser.parse_args()
    if not (args.before / "traverse.cypher").is_file():
        parser.error(f"--before {args.before}: no traverse.cypher there")
    if not (args.before / queries.ENGINE_DIRS).is_dir():
        # An older layout kept overrides in cypher/<engine>/: read here, they would be missed.
        parser.error(
            f"--before {args.before}: no {queries.ENGINE_DIRS}/ folder of engine overrides"
        )
    results: dict[str, Any] = {"before": str(args.before), "queries": args.queries, "cases": {}}
    for engine in args.engines:
        for size in args.sizes:
            if engine == "neo4j" and size > args.neo4j_max:
                continue
            url = args.neo4j if engine == "neo4j" else None
            with open_store(url, home=args.home) as store:
                label = f"{engine}-{size}"
                results["cases"][label] = measure(store, size, args.before, args.queries)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
