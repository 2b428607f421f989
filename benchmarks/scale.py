"""Scale benchmark: how ingest, traversal and the question pipeline cost grow with size.

Usage:
    python benchmarks/scale.py [--sizes 10000 100000] [--neo4j bolt://127.0.0.1:7687]
        [--neo4j-max 100000] [--queries 100] [--out benchmarks/results/scale] [--reuse]
        [--engines falkordb neo4j] [--ingest-only] [--no-cold] [--delete]

For every size, the generated memory of ``mragent.apps.synthetic`` (the generator of
``benchmarks/substrate.py``) is ingested into the embedded FalkorDB and, up to
``--neo4j-max`` contents, into Neo4j, from a corpus file streamed as ``mragent ingest``
reads it. Each ingest runs in a process of its own, so its peak RSS is that ingest's
alone. Then, in one process, every case (engine x size)
is measured interleaved, question by question, so machine noise hits all alike:

* traversal round trip p50/p95 at depth 1, 2 and 3 (entry candidates computed first,
  not timed);
* the whole reconstruction of a question (warm reader), p50/p95 by stage
  (``Reconstruction.timings_ms``) and recall@5 of the question's supporting content;
* cold recall: a fresh process opens the reader and answers one question, first with
  no persisted index copy (the reader builds it from the database), then with the
  copy that run left;
* with ``--delete``, last: each namespace's ``delete_namespace`` (chunked transactions
  on Neo4j), its wall time or the error that stopped it.

Each ingest also records the FalkorDB server's resident memory after it (the whole
server: every graph it holds) and the AOF rewrites the server ran during it.

Results go to ``<out>.json``; ``<out>.png`` plots cost against size on log axes. Each
ingest's figures are kept in ``<out>-ingest.json`` as soon as it ends, so a later run
with ``--reuse`` measures the namespaces already there (``--ingest-only`` runs of one
engine each can ingest side by side, at the price of sharing the machine).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mragent.apps.synthetic import generate
from mragent.core.errors import BackendUnavailable, QueryError
from mragent.core.genome import Genome
from mragent.core.heap import hold_mmap_threshold
from mragent.core.retrieval.reconstruct import traverse
from mragent.core.store import open_store
from mragent.core.store.base import GraphStore
from mragent.memory.audit import AuditLog
from mragent.memory.ingest import ingest, namespace_stats
from mragent.memory.principal import BENCH
from mragent.memory.reader import MemoryReader

DEPTHS = (1, 2, 3)
RECALL_AT = 5
URL_VARIABLE = "MRAGENT_SCALE_URL"
QUESTION_VARIABLE = "MRAGENT_SCALE_QUESTION"


def _namespace(size: int) -> str:
    return f"bench-scale-{size}"


def _peak_rss_mb() -> float:
    """This process's own peak RSS (MB): VmHWM, not ``ru_maxrss``, which a child
    started by exec inherits from the parent's RSS at the time (the parent holding
    the generated corpus of a million contents made every child report 1.4 GB)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024  # kB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # no /proc: kB on most


def _child(args: list[str], url: str, **env: str) -> dict[str, Any]:
    """Run this script's ``args`` subcommand in a fresh process; its JSON answer.

    The store URL may carry the embedded server's password: it goes through the
    child's environment (readable by its user only), never its command line.
    """
    done = subprocess.run(
        [sys.executable, __file__, *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, URL_VARIABLE: url, **env},
    )
    if done.returncode != 0:
        raise RuntimeError(f"{args[0]} failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def write_corpus(size: int, path: Path) -> Path:
    """The generated memory of ``size`` contents as a corpus file (once per size)."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        contents = [
            {"id": c.key, "title": c.title, "text": c.text} for c in generate(size).contents
        ]
        path.write_text(json.dumps({"format": "mragent-corpus/1", "contents": contents}))
    return path


def ingest_child(url: str, size: int, corpus: str) -> None:
    """Subcommand: ingest a corpus file of ``size`` contents into a fresh namespace,
    streamed as ``mragent ingest`` does."""
    ns = _namespace(size)
    hold_mmap_threshold()  # as mragent ingest does
    with open_store(url) as store, tempfile.TemporaryDirectory() as scratch:
        store.run("delete_namespace", {"ns": ns})
        audit = AuditLog(Path(scratch) / "audit.jsonl")  # the benchmark's own, thrown away
        start = time.perf_counter()
        report = ingest(store, Path(corpus), ns, principal=BENCH, audit=audit)
        seconds = time.perf_counter() - start
    out = {"seconds": seconds, "contents_per_s": size / seconds, "peak_rss_mb": _peak_rss_mb()}
    print(json.dumps({**out, "nodes": report.nodes_after}))


def cold_child(url: str, size: int, index_dir: str) -> None:
    """Subcommand: open a reader in this fresh process and answer one question (given
    by the parent, so this process never holds the generated corpus)."""
    question = os.environ[QUESTION_VARIABLE]
    start = time.perf_counter()
    with open_store(url) as store:
        memory = MemoryReader(store, _namespace(size), index_dir=Path(index_dir))
        opened = time.perf_counter()
        memory.reconstruct(question, Genome(traversalDepth=2))
        answered = time.perf_counter()
    print(
        json.dumps(
            {
                "open_ms": (opened - start) * 1000,
                "first_question_ms": (answered - opened) * 1000,
                "total_ms": (answered - start) * 1000,
                "peak_rss_mb": _peak_rss_mb(),
            }
        )
    )


def delete_namespace(url: str, size: int) -> dict[str, Any]:
    """Delete the case's namespace (the engine's ``delete_namespace``, chunked on Neo4j):
    its wall time, or the error that stopped it."""
    with open_store(url) as store:
        start = time.perf_counter()
        try:
            rows = store.run("delete_namespace", {"ns": _namespace(size)})
        except QueryError as exc:
            return {"ok": False, "seconds": time.perf_counter() - start, "error": str(exc)}
        return {"ok": True, "seconds": time.perf_counter() - start, "nodes": rows[0]["deleted"]}


def server_rss_mb(store: GraphStore) -> float | None:
    """The resident memory of the FalkorDB server (all its graphs), else None."""
    if store.capabilities.engine != "falkordb":
        return None
    info = store._db.info("memory")  # type: ignore[attr-defined]
    return int(info["used_memory_rss"]) / 2**20


def aof_rewrites(store: GraphStore) -> int | None:
    """The AOF rewrites the FalkorDB server has run since it started, else None: each
    forks the server and writes the whole database again."""
    if store.capabilities.engine != "falkordb":
        return None
    return int(store._db.info("persistence")["aof_rewrites"])  # type: ignore[attr-defined]


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50": statistics.median(ordered),
        "p95": ordered[max(0, int(0.95 * len(ordered)) - 1)],
        "n": len(ordered),
    }


def _cases(args: argparse.Namespace) -> dict[str, tuple[str, int]]:
    """``label -> (url, size)`` for every engine and size measured."""
    falkor = open_store(None, home=args.home)
    urls = {"falkordb": falkor.secret_url}
    falkor.close()
    if "neo4j" in args.engines:
        try:
            open_store(args.neo4j).close()
            urls["neo4j"] = args.neo4j
        except BackendUnavailable as exc:
            print(f"neo4j skipped: {exc}", file=sys.stderr)
    return {
        f"{engine}-{size}": (url, size)
        for size in args.sizes
        for engine, url in urls.items()
        if engine in args.engines and (engine == "falkordb" or size <= args.neo4j_max)
    }


def _ingest_figures(path: Path) -> dict[str, Any]:
    """The ingest figures measured so far, by case (kept for namespaces reused)."""
    return json.loads(path.read_text()) if path.exists() else {}


def _save_ingest(path: Path, label: str, report: dict[str, Any]) -> None:
    # Re-read first: ingest-only runs for other engines may write the same file.
    figures = _ingest_figures(path)
    figures[label] = report
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(figures, indent=2))


def _ingested(store: GraphStore, size: int) -> bool:
    return namespace_stats(store, _namespace(size)).get("contents") == size


def measure_warm(
    cases: dict[str, tuple[str, int]], queries: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Traversal by depth and the whole pipeline by stage, all cases interleaved."""
    stores = {label: open_store(url) for label, (url, _) in cases.items()}
    memories = {
        label: MemoryReader(stores[label], _namespace(size)) for label, (_, size) in cases.items()
    }
    asked = {}
    for label, (_, size) in cases.items():
        # The same draw for every engine of a size: at 1M about half the questions name
        # an organisation by a common word (on 39k cue texts), which costs cue search
        # ten times more, so a draw of its own per engine compared the draws.
        rng = random.Random(1)
        questions = generate(size).questions
        asked[label] = [questions[rng.randrange(len(questions))] for _ in range(queries)]
    genomes = {depth: Genome(traversalDepth=depth) for depth in DEPTHS}
    proposed = {
        (label, depth, i): memories[label].candidates(q.question, genomes[depth])[0]
        for label in cases
        for depth in DEPTHS
        for i, q in enumerate(asked[label])
    }
    hops: dict[str, dict[int, list[float]]] = {label: {d: [] for d in DEPTHS} for label in cases}
    stages: dict[str, dict[str, list[float]]] = {label: {} for label in cases}
    hits: dict[str, int] = dict.fromkeys(cases, 0)
    for i in range(queries):
        for depth in DEPTHS:
            for label in cases:
                memory = memories[label]
                start = time.perf_counter()
                traverse(
                    stores[label],
                    memory.ns,
                    memory.view,
                    proposed[(label, depth, i)],
                    genomes[depth],
                )
                hops[label][depth].append((time.perf_counter() - start) * 1000)
        for label in cases:
            question = asked[label][i]
            start = time.perf_counter()
            result = memories[label].reconstruct(question.question, genomes[2])
            total = (time.perf_counter() - start) * 1000
            for stage, ms in {**result.timings_ms, "total": total}.items():
                stages[label].setdefault(stage, []).append(ms)
            hits[label] += bool(set(question.supporting) & set(result.retrieved_keys[:RECALL_AT]))
    for store in stores.values():
        store.close()
    traversal = {
        label: {str(d): _summary(values) for d, values in by_depth.items()}
        for label, by_depth in hops.items()
    }
    pipeline = {
        label: {
            **{stage: _summary(values) for stage, values in by_stage.items()},
            f"recall@{RECALL_AT}": hits[label] / queries,
        }
        for label, by_stage in stages.items()
    }
    return traversal, pipeline


def plot(results: dict[str, Any], path: Path) -> None:
    """Cost against size, log axes: traversal p50 by depth, pipeline p50, ingest."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = results["cases"]
    engines = sorted({case["engine"] for case in cases.values()})
    panels = [
        *[
            (f"traversal depth {d} p50 (ms)", lambda c, d=d: c["traversal"][str(d)]["p50"])
            for d in DEPTHS
        ],
        ("reconstruction p50 (ms)", lambda c: c["pipeline"]["total"]["p50"]),
        ("ingest (contents/s)", lambda c: c["ingest"]["contents_per_s"]),
        ("ingest peak RSS (MB)", lambda c: c["ingest"]["peak_rss_mb"]),
    ]
    fig, axes = plt.subplots(2, 3, figsize=(13, 7))
    for ax, (title, value) in zip(axes.flat, panels, strict=True):
        drawn = False
        for engine in engines:
            points = sorted(
                (case["size"], value(case))
                for case in cases.values()
                if case["engine"] == engine and (case["ingest"] or "ingest" not in title)
            )
            if points:
                ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=engine)
                drawn = True
        if not drawn:  # a reused namespace without its ingest figures: an empty log axis fails
            ax.set_title(f"{title}: not in this run")
            ax.axis("off")
            continue
        ax.set(xscale="log", yscale="log", title=title, xlabel="contents")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--neo4j", default="bolt://127.0.0.1:7687")
    parser.add_argument("--neo4j-max", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/scale"))
    parser.add_argument("--home", type=Path, default=None, help="embedded FalkorDB home")
    parser.add_argument("--reuse", action="store_true", help="keep namespaces already ingested")
    parser.add_argument("--engines", nargs="+", default=["falkordb", "neo4j"])
    parser.add_argument("--ingest-only", action="store_true", help="stop after the ingests")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold-recall processes")
    parser.add_argument(
        "--delete", action="store_true", help="delete every namespace at the end, timed"
    )
    args = parser.parse_args()
    cases = _cases(args)
    results: dict[str, Any] = {"sizes": args.sizes, "queries": args.queries, "cases": {}}
    ingests = args.out.with_name(args.out.name + "-ingest.json")
    for label, (url, size) in cases.items():
        with open_store(url) as store:
            engine = store.capabilities.engine
            reuse = args.reuse and _ingested(store, size)
        report = _ingest_figures(ingests).get(label) if reuse else None
        if not reuse:
            corpus = write_corpus(size, args.out.with_name(f"{args.out.name}-corpus-{size}.json"))
            with open_store(url) as store:
                rewrites = aof_rewrites(store)
            report = _child(["ingest", str(size), str(corpus)], url)
            with open_store(url) as store:
                report["server_rss_mb"] = server_rss_mb(store)
                after = aof_rewrites(store)
                # Counted when the ingest returned; one may start as the bulk window closes.
                report["aof_rewrites"] = (
                    None if rewrites is None or after is None else after - rewrites
                )
            _save_ingest(ingests, label, report)
        print(f"{label}: ingest {report if not reuse else 'reused'}", file=sys.stderr)
        results["cases"][label] = {"engine": engine, "size": size, "ingest": report}
    if args.ingest_only:
        return
    traversal, pipeline = measure_warm(cases, args.queries)
    for label, (url, size) in cases.items():
        results["cases"][label].update(traversal=traversal[label], pipeline=pipeline[label])
        if args.no_cold:
            continue
        question = {QUESTION_VARIABLE: generate(size).questions[0].question}
        with tempfile.TemporaryDirectory() as index_dir:
            results["cases"][label]["cold"] = {
                "no_index_copy": _child(["cold", str(size), index_dir], url, **question),
                "persisted_copy": _child(["cold", str(size), index_dir], url, **question),
            }
    if args.delete:
        for label, (url, size) in cases.items():
            results["cases"][label]["delete"] = delete_namespace(url, size)
            print(f"{label}: delete {results['cases'][label]['delete']}", file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(results, indent=2))
    plot(results, args.out.with_suffix(".png"))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "ingest":
        ingest_child(os.environ[URL_VARIABLE], int(sys.argv[2]), sys.argv[3])
    elif len(sys.argv) > 1 and sys.argv[1] == "cold":
        cold_child(os.environ[URL_VARIABLE], int(sys.argv[2]), sys.argv[3])
    else:
        main()
