"""Live read path benchmark: warm reconstruction beside an earlier checkout, a write seen by
the next recall, cold ``mragent recall`` beside the process-start floor, and the engines'
native indexes beside the reader's own.

Usage:
    python benchmarks/live.py --before /path/to/earlier/checkout [--neo4j bolt://127.0.0.1:7687]
        [--synthetic 100000] [--rounds 3] [--sections warm,fresh,cold,native] [--json out.json]

Every timing is interleaved: the earlier checkout and this one answer the same question
one after the other (the order alternating), in two worker processes started by this
script, each timing its own reconstruction; cold runs alternate ``recall`` with the
floor (``mragent --version``: the same imports, no database). Ratios are reported beside
the figures because the machine is shared. The embedded FalkorDB is the one of
``$MRAGENT_HOME``; Neo4j is used when ``--neo4j`` answers.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
DATASETS = Path(os.environ.get("MRAGENT_DATASETS", HERE.parent.parent / "shared" / "datasets"))
STAGES = ("cue_search", "traversal", "synthesis")


# --- the worker: one checkout's reader, answering questions on stdin -------------------------


def _load(dataset: str, size: int) -> tuple[Any, str]:
    """The corpus and namespace of ``dataset`` as the running checkout derives them."""
    from mragent.apps.datasets import dataset_namespace, load_dataset, load_questions_corpus
    from mragent.apps.synthetic import generate

    if dataset == "synthetic":
        return generate(size), f"bench-live-synthetic-{size}"
    if dataset == "reference":
        corpus, ns, _ = load_questions_corpus(None, None, None)
        return corpus, ns
    path, pool = DATASETS / f"{dataset}_100.json", DATASETS / f"{dataset}_100_corpus.json"
    return load_dataset(dataset, path, pool), dataset_namespace(dataset, path, pool)


def worker() -> None:
    """Answer JSON commands: open (dataset, db, size), ask (question index), quit."""
    from mragent.apps.bench import ensure_ingested
    from mragent.core.genome import PRESETS
    from mragent.core.store import open_store
    from mragent.memory.reader import MemoryReader

    memory, questions = None, []
    for line in sys.stdin:
        command = json.loads(line)
        if command["do"] == "open":
            store = open_store(command["db"])
            corpus, ns = _load(command["dataset"], command.get("size", 0))
            started = time.perf_counter()
            ensure_ingested(store, corpus, ns)
            ingest_s = time.perf_counter() - started
            started = time.perf_counter()
            memory = MemoryReader(store, ns)
            questions = [q.question for q in corpus.questions]
            reply = {"ns": ns, "questions": len(questions), "ingest_s": ingest_s,
                     "open_s": time.perf_counter() - started}  # fmt: skip
        elif command["do"] == "ask":
            assert memory is not None
            rec = memory.reconstruct(questions[command["i"]], PRESETS["default"])
            reply = {"timings": rec.timings_ms, "keys": rec.retrieved_keys[:10]}
        else:
            return
        print(json.dumps(reply), flush=True)


class Worker:
    """A worker process running one checkout's code."""

    def __init__(self, source: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(source)}
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=source,
        )

    def ask(self, **command: Any) -> dict[str, Any]:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.write(json.dumps({"do": "quit"}) + "\n")
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


def _p50(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def warm(before: Path, db: str | None, datasets: list[str], rounds: int) -> dict[str, Any]:
    """Reconstruction p50 per stage, the earlier checkout and this one interleaved."""
    out: dict[str, Any] = {}
    for dataset in datasets:
        # This checkout opens first: a namespace an earlier one ingested lacks the version
        # and uid this one reads (main reads this one's namespace as it reads its own).
        workers = {"after": Worker(HERE), "before": Worker(before)}
        opened = {name: w.ask(do="open", db=db, dataset=dataset) for name, w in workers.items()}
        n = opened["after"]["questions"]
        times: dict[str, dict[str, list[float]]] = {w: {s: [] for s in (*STAGES, "total")}
                                                    for w in workers}  # fmt: skip
        same = 0
        for r in range(rounds + 1):  # the first round warms both up and is not counted
            for i in range(n):
                order = list(workers) if (i + r) % 2 == 0 else list(workers)[::-1]
                replies = {name: workers[name].ask(do="ask", i=i) for name in order}
                if r == 0:
                    same += replies["before"]["keys"] == replies["after"]["keys"]
                    continue
                for name, reply in replies.items():
                    for stage in STAGES:
                        times[name][stage].append(reply["timings"].get(stage, 0.0))
                    times[name]["total"].append(sum(reply["timings"].values()))
        for w in workers.values():
            w.close()
        p50 = {name: {s: _p50(v) for s, v in stages.items()} for name, stages in times.items()}
        out[dataset] = {
            "questions": n,
            "same_top10": same,
            "p50_ms": p50,
            "ratio": {s: p50["after"][s] / p50["before"][s] for s in p50["after"]},
            "open_s": {name: o["open_s"] for name, o in opened.items()},
        }
        print(f"warm {dataset}: {json.dumps(out[dataset])}", flush=True)
    return out


# --- a write seen by the next recall ------------------------------------------------------------


def fresh(db: str | None) -> dict[str, Any]:
    """A reader opened before a write answers from it on the next recall."""
    from mragent.core.genome import PRESETS
    from mragent.core.store import open_store
    from mragent.memory.audit import AuditLog
    from mragent.memory.principal import Principal
    from mragent.memory.reader import MemoryReader
    from mragent.memory.writer import MemoryWriter

    ns = f"bench-live-fresh-{os.getpid()}"
    human = Principal("human", "bench")
    with open_store(db) as store:
        writer = MemoryWriter(
            store, ns, AuditLog(Path(os.environ.get("TMPDIR", "/tmp")) / f"{ns}.jsonl")
        )
        writer.remember("The Perseus bridge was built by Anton Weiss.", principal=human)
        reader = MemoryReader(store, ns)
        question = "Who directs the Lyra observatory?"
        missed = "Mara Voss" in reader.reconstruct(question, PRESETS["default"]).context.text
        written = writer.remember("The Lyra observatory is directed by Mara Voss.", principal=human)
        calls: list[str] = []
        run = store.run

        def counting(name: str, params: Any = None, **render: Any) -> Any:
            calls.append(name)
            return run(name, params, **render)

        store.run = counting  # type: ignore[method-assign]
        started = time.perf_counter()
        seen = "Mara Voss" in reader.reconstruct(question, PRESETS["default"]).context.text
        elapsed = (time.perf_counter() - started) * 1000
        store.run = run  # type: ignore[method-assign]
        writer.forget(written.id, principal=human, reason="benchmark")
        gone = "Mara Voss" not in reader.reconstruct(question, PRESETS["default"]).context.text
        store.run("delete_namespace", {"ns": ns})
    result = {"absent_before": not missed, "seen_after_write": seen, "absent_after_forget": gone,
              "queries": calls, "recall_ms": elapsed}  # fmt: skip
    print(f"fresh: {json.dumps(result)}", flush=True)
    return result


# --- cold recall ----------------------------------------------------------------------------


def _wall(args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(args, env=env, check=True, capture_output=True, cwd=HERE)
    return (time.perf_counter() - started) * 1000


def cold(db: str | None, datasets: list[tuple[str, int]], rounds: int) -> dict[str, Any]:
    """``mragent recall`` in a new process, beside ``mragent --version`` (the floor)."""
    env = {**os.environ, "PYTHONPATH": str(HERE)}
    cli = [sys.executable, "-c", "from mragent.cli import main; main()"]
    out: dict[str, Any] = {}
    for dataset, size in datasets:
        opener = Worker(HERE)  # ingests if needed and saves the index copy once
        opened = opener.ask(do="open", db=db, dataset=dataset, size=size)
        opener.close()
        corpus, ns = _load(dataset, size)
        question = corpus.questions[0].question
        recall = [*cli, "recall", question, "--ns", ns, *(["--db", db] if db else [])]
        walls: dict[str, list[float]] = {"recall": [], "floor": []}
        for r in range(rounds + 1):
            for name in ("recall", "floor") if r % 2 else ("floor", "recall"):
                wall = _wall(recall if name == "recall" else [*cli, "--version"], env)
                if r:
                    walls[name].append(wall)
        p50 = {name: _p50(v) for name, v in walls.items()}
        key = f"{dataset}{size or ''}"
        out[key] = {
            "p50_ms": p50,
            "over_floor_ms": p50["recall"] - p50["floor"],
            "ratio": p50["recall"] / p50["floor"],
            "first_open_s": opened["open_s"],
            "ingest_s": opened["ingest_s"],
            "contents": len(corpus.contents),
        }
        print(f"cold {key}: {json.dumps(out[key])}", flush=True)
    return out


# --- the engines' own indexes ------------------------------------------------------------------


def native(db: str | None, rounds: int) -> dict[str, Any]:
    """The native vector index beside the reader's HNSW: latency and top-k overlap."""
    from mragent.core.genome import PRESETS
    from mragent.core.store import open_store
    from mragent.memory.reader import MemoryReader

    corpus, ns = _load("musique", 0)
    with open_store(db) as store:
        memory = MemoryReader(store, ns)
        cues = memory.index.cues
        mask = cues.admitted(memory.view.scopes)
        ef = PRESETS["default"].efSearch
        overlap, ours_ms, theirs_ms = [], [], []
        for _ in range(rounds):
            for q in corpus.questions:
                vector = memory.embedder.embed_queries([q.question])[0]
                started = time.perf_counter()
                ours = cues.dense(vector, ef, mask)
                ours_ms.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                theirs = cues.native_dense(store, ns, memory.view.scopes, vector, mask)
                theirs_ms.append((time.perf_counter() - started) * 1000)
                exact = cues.exact_dense(vector, len(ours), mask)
                overlap.append((len(set(ours) & set(exact)), len(set(theirs) & set(exact)),
                                max(1, len(exact))))  # fmt: skip
        engine = store.capabilities.engine
    result = {
        "engine": engine,
        "hnsw_p50_ms": _p50(ours_ms),
        "native_p50_ms": _p50(theirs_ms),
        "hnsw_recall": sum(o[0] for o in overlap) / sum(o[2] for o in overlap),
        "native_recall": sum(o[1] for o in overlap) / sum(o[2] for o in overlap),
    }
    print(f"native {engine}: {json.dumps(result)}", flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--before", type=Path, help="an earlier checkout to compare with")
    parser.add_argument("--neo4j", default=None, help="a Neo4j URL to measure beside FalkorDB")
    parser.add_argument("--synthetic", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sections", default="warm,fresh,cold,native")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if args.worker:
        worker()
        return
    sections = set(args.sections.split(","))
    dbs: list[str | None] = [None, *([args.neo4j] if args.neo4j else [])]
    report: dict[str, Any] = {}
    for db in dbs:
        name = "falkordb" if db is None else "neo4j"
        part: dict[str, Any] = {}
        if "warm" in sections and args.before:
            part["warm"] = warm(args.before, db, ["reference", "musique"], args.rounds)
        if "fresh" in sections:
            part["fresh"] = fresh(db)
        if "cold" in sections:
            sizes = [("musique", 0), *([("synthetic", args.synthetic)] if args.synthetic else [])]
            part["cold"] = cold(db, sizes, args.rounds)
        if "native" in sections:
            part["native"] = native(db, 1)
        report[name] = part
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
