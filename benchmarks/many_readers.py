"""Many readers, one database: 1, 2, 4 and 8 concurrent clients, with writers active.

Each client runs for ``--seconds``: nine recalls of questions drawn from the corpus,
then one remember, over and over (one write per ten operations). Clients are either
separate facade processes (``open_memory`` in a process of its own each, the way
several agents on one machine share a database), or MCP clients over streamable
HTTP against one ``mragent mcp --transport http`` server. Every client is an agent
the namespace does not trust, so each write waits for review: a recall under the
default read view must never hand back one of them. Each remember restates the
question it follows, so a view that let pending memories through would show them
at once; the run fails (exit 1) when any recall does.

Reported per client count: reads per second over all clients, recall p50/p95, and
writes per second. The counts run one after another on the same namespace (its
pending memories grow from run to run, as a shared memory's would).

The memory is the bundled reference corpus, the MuSiQue pool (``--musique``,
``--pool``) or the generated memory of ``benchmarks/scale.py`` (``--synthetic N``
contents, asked its own bridge questions). Before the clients start, the parent opens
a reader once, so every client loads the index copy rather than building it.

Usage::

    python benchmarks/many_readers.py [--db URL] [--clients 1 2 4 8] [--seconds 20]
        [--musique FILE --pool FILE | --synthetic N] [--modes facade mcp] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import mcp_bench as bench

from mragent import open_memory
from mragent.apps.bench import ensure_ingested
from mragent.apps.datasets import load_questions_corpus
from mragent.apps.synthetic import generate
from mragent.core.corpus import Corpus
from mragent.core.store import embedded, open_store
from mragent.memory.reader import MemoryReader

WRITE_EVERY = 10  # one write per ten operations


def _pct(values: list[float], q: float) -> float:
    return round(bench._pct(values, q), 2) if values else 0.0


class _Tally:
    """One client's operations: which comes next, and what they measured."""

    def __init__(self, questions: list[str], seconds: float, seed: int) -> None:
        self.questions, self.seconds, self.rng = questions, seconds, random.Random(seed)
        self.reads: list[float] = []
        self.writes = self.leaked = 0

    def ops(self) -> Iterator[tuple[str, str]]:
        """``("recall", question)`` nine times in ten, then ``("remember", text)``
        restating the last question, until the client's time is up."""
        end = time.time() + self.seconds
        op, question = 0, self.questions[0]
        while time.time() < end:
            op += 1
            if op % WRITE_EVERY == 0:
                self.writes += 1
                yield "remember", f"{question} (note {uuid.uuid4().hex[:8]})"
            else:
                question = self.rng.choice(self.questions)
                yield "recall", question

    def read(self, started: float, trusts: Iterable[str | None]) -> None:
        self.reads.append((time.perf_counter() - started) * 1000)
        self.leaked += sum(trust != "accepted" for trust in trusts)

    def result(self) -> dict:
        return {"reads": self.reads, "writes": self.writes, "leaked": self.leaked}


def _facade_client(args: tuple[str, str | None, str, list[str], float, int, Any]) -> dict:
    """One client process: recalls and remembers until its time is up."""
    ns, db, token, questions, seconds, seed, start_at = args
    tally = _Tally(questions, seconds, seed)
    with open_memory(ns, token=token, db=db) as memory:
        memory.recall(questions[0])  # the reader built before the clock starts
        while time.time() < start_at:
            time.sleep(0.01)
        for kind, text in tally.ops():
            if kind == "remember":
                memory.remember(text)
                continue
            started = time.perf_counter()
            answer = memory.recall(text)
            tally.read(started, (item.trust for item in answer.context))
    return tally.result()


async def _mcp_client(
    url: str, token: str, questions: list[str], seconds: float, seed: int, start_at: float
) -> dict:
    tally = _Tally(questions, seconds, seed)
    async with bench.http_client(url, token) as client:
        await client.call_tool("recall", {"question": questions[0]})
        await asyncio.sleep(max(0.0, start_at - time.time()))
        for kind, text in tally.ops():
            if kind == "remember":
                await client.call_tool("remember", {"text": text})
                continue
            started = time.perf_counter()
            result = await client.call_tool("recall", {"question": text})
            context = (result.structured_content or {}).get("context", [])
            tally.read(started, (item.get("trust") for item in context))
    return tally.result()


def run_facade(ns: str, db: str | None, token: str, questions: list[str], n: int, s: float):
    start_at = time.time() + 15 + 2 * n  # every process open and warm by then
    jobs = [(ns, db, token, questions, s, i, start_at) for i in range(n)]
    with multiprocessing.get_context("spawn").Pool(n) as pool:
        return pool.map(_facade_client, jobs)


async def run_mcp(url: str, token: str, questions: list[str], n: int, s: float):
    start_at = time.time() + 5 + n
    return await asyncio.gather(
        *(_mcp_client(url, token, questions, s, i, start_at) for i in range(n))
    )


def summarise(results: list[dict], seconds: float) -> dict[str, Any]:
    reads = [ms for r in results for ms in r["reads"]]
    return {
        "clients": len(results),
        "reads_per_s": round(len(reads) / seconds, 1),
        "writes_per_s": round(sum(r["writes"] for r in results) / seconds, 1),
        "recall_p50_ms": _pct(reads, 0.5),
        "recall_p95_ms": _pct(reads, 0.95),
        "per_client_reads_per_s": round(statistics.fmean(len(r["reads"]) for r in results)
                                        / seconds, 1),
        "pending_recalled": sum(r["leaked"] for r in results),
    }  # fmt: skip


def _memory(args: argparse.Namespace) -> tuple[Corpus, str]:
    """The memory the clients share, and the name its namespace starts with."""
    if args.synthetic is not None:
        return generate(args.synthetic), f"synthetic-{args.synthetic}"
    dataset = "musique" if args.musique else None
    data, ns, _ = load_questions_corpus(dataset, args.musique, args.pool)
    return data, ns


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="Database URL (default: an embedded FalkorDB).")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--seconds", type=float, default=20.0, help="per client count")
    parser.add_argument("--modes", nargs="+", choices=["facade", "mcp"], default=["facade", "mcp"])
    parser.add_argument("--musique", type=Path, help="MuSiQue questions (musique_100.json)")
    parser.add_argument("--pool", type=Path, help="its pooled corpus (musique_100_corpus.json)")
    parser.add_argument("--synthetic", type=int, help="the generated memory of N contents")
    parser.add_argument("--out", type=Path, help="write the figures here as JSON")
    args = parser.parse_args()
    if bool(args.musique) != bool(args.pool):
        parser.error("--musique and --pool go together")
    if args.synthetic is not None and (args.musique or args.synthetic < 10):
        parser.error("--synthetic takes N >= 10 contents, instead of --musique")
    figures: dict[str, Any] = {"db": args.db or "embedded falkordb", "seconds": args.seconds}
    with tempfile.TemporaryDirectory(prefix="mragent-many-readers-") as tmp:
        home = Path(tmp)
        token = bench._setup(home)
        if not args.db:
            embedded.ensure_running(home)
        data, ns = _memory(args)
        figures["memory"] = {"name": ns, "contents": len(data.contents)}
        ns = f"{ns}-readers-{uuid.uuid4().hex[:6]}"
        try:
            with open_store(args.db) as store:
                started = time.perf_counter()
                ensure_ingested(store, data, ns)
                figures["memory"]["ingest_s"] = round(time.perf_counter() - started, 1)
                MemoryReader(store, ns)  # builds and saves the index copy the clients load
            questions = [q.question for q in data.questions]
            del data  # the clients are separate processes: the parent needs only questions
            for mode in args.modes:
                rows = []
                server = bench.HttpServer(ns, args.db) if mode == "mcp" else None
                try:
                    for n in args.clients:
                        if server is None:
                            results = run_facade(ns, args.db, token, questions, n, args.seconds)
                        else:
                            results = asyncio.run(
                                run_mcp(server.url, token, questions, n, args.seconds)
                            )
                        row = summarise(results, args.seconds)
                        rows.append(row)
                        print(mode, json.dumps(row), flush=True)
                finally:
                    if server is not None:
                        server.stop()
                figures[mode] = rows
        finally:
            if args.db:  # a server of the user's: leave it as it was
                with open_store(args.db) as store:
                    store.run("delete_namespace", {"ns": ns})
            else:
                embedded.stop(home)
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    leaked = sum(row["pending_recalled"] for mode in args.modes for row in figures[mode])
    if leaked:
        print(f"many_readers: {leaked} pending memories were recalled", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
