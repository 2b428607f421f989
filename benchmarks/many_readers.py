"""Many readers, one database: 1, 2, 4 and 8 concurrent clients, with writers active.

Each client runs for ``--seconds``: nine recalls of questions drawn from the corpus,
then one remember, over and over (one write per ten operations). Clients are either
separate facade processes (``open_memory`` in a process of its own each, the way
several agents on one machine share a database), or MCP clients over streamable
HTTP against one ``mragent mcp --transport http`` server. Every client is an agent
of its own (its own token, so its own session in the server, which serialises its
caller's calls) that the namespace does not trust, so each write waits for review:
a recall under the default read view must never hand back one of them. Each
remember restates the question it follows, so a view that let pending memories
through would show them at once; the run fails (exit 1) when any recall does.

Reported per client count: reads per second over all clients, recall p50/p95, and
writes per second. The counts run one after another on the same namespace (its
pending memories grow from run to run, as a shared memory's would).

Beside them, where the CPU went in the timed window (Linux, from ``/proc``): CPU
milliseconds per operation of the clients, the MCP server and the database (the
embedded server, or ``--db-pid`` for a server of the user's), how many cores they
kept busy, and the throughput every core of the machine would give at that CPU per
operation: the ceiling more clients can approach, and what stands under it.

The memory is the bundled reference corpus, the MuSiQue pool (``--musique``,
``--pool``) or the generated memory of ``benchmarks/scale.py`` (``--synthetic N``
contents, asked its own bridge questions). Before the clients start, the parent opens
a reader once, so every client loads the index copy rather than building it.

Usage::

    python benchmarks/many_readers.py [--db URL] [--clients 1 2 4 8] [--seconds 20]
        [--musique FILE --pool FILE | --synthetic N] [--modes facade mcp] [--out FILE]
        [--db-pid PID]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
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
from mragent.memory.credentials import editing
from mragent.memory.principal import Principal
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
        self.cpu_from: float | None = None  # the process's CPU time when the clock started

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
        cpu = None if self.cpu_from is None else time.process_time() - self.cpu_from
        return {"reads": self.reads, "writes": self.writes, "leaked": self.leaked, "cpu_s": cpu}


def _cpu_s(pid: int) -> float:
    """The user and system CPU seconds process ``pid`` has used (every thread of it)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _window_cpu(pids: dict[str, int], start_at: float, seconds: float) -> dict[str, float]:
    """The CPU seconds each process of ``pids`` (name -> pid) uses in the clients'
    timed window, which opens at ``start_at`` and lasts ``seconds``."""
    time.sleep(max(0.0, start_at - time.time()))
    before = {name: _cpu_s(pid) for name, pid in pids.items()}
    time.sleep(seconds)
    return {name: _cpu_s(pid) - before[name] for name, pid in pids.items()}


def _facade_client(args: tuple[str, str | None, str, list[str], float, int, Any]) -> dict:
    """One client process: recalls and remembers until its time is up."""
    ns, db, token, questions, seconds, seed, start_at = args
    tally = _Tally(questions, seconds, seed)
    with open_memory(ns, token=token, db=db) as memory:
        memory.recall(questions[0])  # the reader built before the clock starts
        while time.time() < start_at:
            time.sleep(0.01)
        tally.cpu_from = time.process_time()
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


def run_facade(
    ns: str,
    db: str | None,
    tokens: list[str],
    questions: list[str],
    n: int,
    s: float,
    pids: dict[str, int],
) -> tuple[list[dict], dict[str, float]]:
    """``n`` facade processes' results, and the CPU seconds of the processes of ``pids``
    and of the clients (each measures its own) in the timed window."""
    start_at = time.time() + 15 + 2 * n  # every process open and warm by then
    jobs = [(ns, db, tokens[i], questions, s, i, start_at) for i in range(n)]
    with multiprocessing.get_context("spawn").Pool(n) as pool:
        running = pool.map_async(_facade_client, jobs)
        cpu = _window_cpu(pids, start_at, s)
        results = running.get()
    return results, {"clients": sum(r["cpu_s"] for r in results), **cpu}


async def run_mcp(
    url: str, tokens: list[str], questions: list[str], n: int, s: float, pids: dict[str, int]
) -> tuple[list[dict], dict[str, float]]:
    """``n`` MCP clients' results (coroutines of this process), and the CPU seconds of
    the processes of ``pids`` and of this one (the clients) in the timed window."""
    start_at = time.time() + 5 + n
    pids = {"clients": os.getpid(), **pids}
    window = asyncio.to_thread(_window_cpu, pids, start_at, s)
    *results, cpu = await asyncio.gather(
        *(_mcp_client(url, tokens[i], questions, s, i, start_at) for i in range(n)), window
    )
    return results, cpu


def summarise(results: list[dict], seconds: float, cpu: dict[str, float]) -> dict[str, Any]:
    """One client count's figures: throughput, latency, leaks, and where the CPU went."""
    reads = [ms for r in results for ms in r["reads"]]
    ops = len(reads) + sum(r["writes"] for r in results)
    cores = len(os.sched_getaffinity(0))
    return {
        "clients": len(results),
        "reads_per_s": round(len(reads) / seconds, 1),
        "writes_per_s": round(sum(r["writes"] for r in results) / seconds, 1),
        "recall_p50_ms": _pct(reads, 0.5),
        "recall_p95_ms": _pct(reads, 0.95),
        "per_client_reads_per_s": round(statistics.fmean(len(r["reads"]) for r in results)
                                        / seconds, 1),
        "pending_recalled": sum(r["leaked"] for r in results),
        "cpu_ms_per_op": {name: round(1000 * used / ops, 2) for name, used in cpu.items()},
        "cores_busy": round(sum(cpu.values()) / seconds, 2),
        "cpu_bound_ops_per_s": round(cores * ops / sum(cpu.values()), 1),
    }  # fmt: skip


def _agents(count: int) -> list[str]:
    """Tokens of ``count`` more agents, with the grants of the one ``mcp_bench`` sets up."""
    tokens = []
    with editing() as creds:
        for i in range(2, count + 2):
            token = creds.add(
                Principal("agent", f"bench-agent-{i}"), read=["shared"], write=["shared"]
            )
            assert token is not None  # an agent is given one
            tokens.append(token)
    return tokens


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
    parser.add_argument(
        "--db-pid", type=int, help="the --db server's process, to count its CPU (same host)"
    )
    args = parser.parse_args()
    if bool(args.musique) != bool(args.pool):
        parser.error("--musique and --pool go together")
    if args.synthetic is not None and (args.musique or args.synthetic < 10):
        parser.error("--synthetic takes N >= 10 contents, instead of --musique")
    if args.db_pid is not None and not args.db:
        parser.error("--db-pid names the --db server's process; the embedded one is found")
    if args.db_pid is not None and not Path(f"/proc/{args.db_pid}/stat").exists():
        parser.error(f"--db-pid {args.db_pid}: no such process on this host")
    figures: dict[str, Any] = {"db": args.db or "embedded falkordb", "seconds": args.seconds}
    with tempfile.TemporaryDirectory(prefix="mragent-many-readers-") as tmp:
        home = Path(tmp)
        tokens = [bench._setup(home), *_agents(max(args.clients) - 1)]
        pids = {"database": args.db_pid} if args.db_pid is not None else {}
        if not args.db:
            pids["database"] = embedded.ensure_running(home).pid
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
                            results, cpu = run_facade(
                                ns, args.db, tokens, questions, n, args.seconds, pids
                            )
                        else:
                            serving = {**pids, "mcp_server": server.proc.pid}
                            results, cpu = asyncio.run(
                                run_mcp(server.url, tokens, questions, n, args.seconds, serving)
                            )
                        row = summarise(results, args.seconds, cpu)
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
