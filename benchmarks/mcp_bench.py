"""MCP benchmark: recall through the MCP server beside the facade in-process, and
concurrent remembers through MCP.

Usage:
    python benchmarks/mcp_bench.py [--db URL] [--rounds 5] [--cli-every 5]
        [--musique ../shared/datasets/musique_100.json
         --pool ../shared/datasets/musique_100_corpus.json] [--out mcp.json]

1. Latency: the reference corpus and (when given) the MuSiQue pool are ingested;
   every question is asked, warm, through three paths in one process: the facade
   in-process, the real ``mragent mcp`` server over stdio and over streamable HTTP
   (both with the SDK's client, as an agent holding a token). The paths are
   interleaved question by question, in a rotating order, so machine noise hits
   all three alike; p50/p95 are per path, the overhead is MCP p50 minus
   in-process p50, and the ratio is MCP p50 over in-process p50. The first
   round also times ``list_tools`` after each MCP recall: the transport's own
   round trip, with no memory work behind it. In the first
   round every ``--cli-every``-th question is also asked through the command
   line (``mragent recall --json``, one process per question, as an agent
   without MCP would), in the same rotation.
2. Concurrency: 8 MCP clients remember 50 distinct texts each into one fresh
   namespace at once, over HTTP (one server) and over stdio (8 servers, so 8
   processes share the audit log). Afterwards every text must be stored exactly
   once and the audit log must verify (chain, the namespace's anchor, and every
   stored version's seal).

Everything runs in a temporary MRAGENT_HOME (credentials, audit log and, without
--db, the embedded FalkorDB, which every child process finds there: no database
password on any command line).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from mragent import open_memory
from mragent.apps.bench import ensure_ingested
from mragent.apps.datasets import load_questions_corpus
from mragent.core.store import embedded, open_store
from mragent.core.view import ReadView
from mragent.memory.audit import AuditLog
from mragent.memory.audit_check import verify_store
from mragent.memory.credentials import editing, os_user
from mragent.memory.principal import Principal

ENTRY = [sys.executable, "-c", "from mragent.cli import main; main()"]
CLIENTS, PER_CLIENT = 8, 50


def _db_args(db: str | None) -> list[str]:
    """``--db`` for a child process; none for the embedded server under MRAGENT_HOME."""
    return ["--db", db] if db else []


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class HttpServer:
    """``mragent mcp --transport http`` for one namespace, as a child process."""

    def __init__(self, ns: str, db: str | None) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        cmd = [*ENTRY, "mcp", "--transport", "http", "--port", str(self.port), "--ns", ns]
        self.proc = subprocess.Popen([*cmd, *_db_args(db)], env=os.environ.copy())
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("the HTTP server did not start") from None
                time.sleep(0.2)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)


@asynccontextmanager
async def http_client(url: str, token: str) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60, read=600)) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


def stdio_client(ns: str, db: str | None, token: str) -> Client:
    env = {**os.environ, "MRAGENT_TOKEN": token}
    args = [*ENTRY[1:], "mcp", "--ns", ns, *_db_args(db)]
    return Client(StdioServerParameters(command=ENTRY[0], args=args, env=env))


async def _mcp_recall(client: Client, question: str) -> float:
    start = time.perf_counter()
    result = await client.call_tool("recall", {"question": question})
    elapsed = (time.perf_counter() - start) * 1000
    if result.is_error:
        raise SystemExit(f"recall failed over MCP: {result.content}")
    return elapsed


async def _list_tools(client: Client) -> float:
    start = time.perf_counter()
    await client.list_tools()
    return (time.perf_counter() - start) * 1000


def _cli_recall(ns: str, question: str, db: str | None, token: str) -> float:
    """One ``mragent recall --json`` process (the token in its environment, never argv)."""
    env = {**os.environ, "MRAGENT_TOKEN": token}
    start = time.perf_counter()
    done = subprocess.run(
        [*ENTRY, "recall", question, "--ns", ns, *_db_args(db), "--json"],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        raise SystemExit(f"recall failed on the command line: {done.stderr.strip()}")
    json.loads(done.stdout)
    return elapsed


async def latency(
    ns: str, questions: list[str], db: str | None, token: str, rounds: int, cli_every: int
) -> dict:
    """p50/p95 of warm recall per path, interleaved question by question."""
    server = HttpServer(ns, db)
    try:
        async with AsyncExitStack() as stack:
            via_http = await stack.enter_async_context(http_client(server.url, token))
            via_stdio = await stack.enter_async_context(stdio_client(ns, db, token))
            facade = stack.enter_context(open_memory(ns, token=token, db=db))

            def in_process(question: str) -> float:
                start = time.perf_counter()
                facade.recall(question)
                return (time.perf_counter() - start) * 1000

            for question in questions:  # warm: every reader built, every path exercised
                in_process(question)
                await _mcp_recall(via_http, question)
                await _mcp_recall(via_stdio, question)
            times: dict[str, list[float]] = {"in-process": [], "stdio": [], "http": [], "cli": []}
            floor: dict[str, list[float]] = {"stdio": [], "http": []}
            for r in range(rounds):
                for i, question in enumerate(questions):
                    order = list(times) if r == 0 and i % cli_every == 0 else list(times)[:3]
                    turn = (r + i) % len(order)
                    for path in order[turn:] + order[:turn]:
                        if path == "in-process":
                            times[path].append(in_process(question))
                        elif path == "cli":
                            times[path].append(_cli_recall(ns, question, db, token))
                        else:
                            client = via_http if path == "http" else via_stdio
                            times[path].append(await _mcp_recall(client, question))
                            if r == 0:  # the transport alone: a call with no memory work
                                floor[path].append(await _list_tools(client))
    finally:
        server.stop()
    summary = {
        path: {"n": len(v), "p50_ms": _pct(v, 0.5), "p95_ms": _pct(v, 0.95),
               "mean_ms": statistics.fmean(v)}
        for path, v in times.items()
    }  # fmt: skip
    base = summary["in-process"]["p50_ms"]
    for path in ("stdio", "http", "cli"):
        summary[path]["overhead_p50_ms"] = summary[path]["p50_ms"] - base
        summary[path]["ratio_p50"] = summary[path]["p50_ms"] / base
    for path, v in floor.items():
        summary[path]["list_tools_p50_ms"] = _pct(v, 0.5)
    return summary


async def _remember_all(client: Client, worker: int) -> list[str]:
    ids = []
    for i in range(PER_CLIENT):
        text = f"Client {worker} logged parcel {worker * 1000 + i} on shelf {i} of row {worker}."
        result = await client.call_tool("remember", {"text": text})
        if result.is_error:
            raise SystemExit(f"remember failed: {result.content}")
        ids.append(result.structured_content["id"])
    return ids


async def concurrency(transport: str, db: str | None, token: str, audit: Path) -> dict:
    """8 clients x 50 remembers into one fresh namespace; then count and verify."""
    ns = f"bench-mcp-conc-{transport}-{uuid.uuid4().hex[:8]}"
    server = HttpServer(ns, db) if transport == "http" else None
    try:
        async with AsyncExitStack() as stack:
            clients = [
                await stack.enter_async_context(
                    http_client(server.url, token) if server else stdio_client(ns, db, token)
                )
                for _ in range(CLIENTS)
            ]
            start = time.perf_counter()
            written = await asyncio.gather(*(_remember_all(c, w) for w, c in enumerate(clients)))
            elapsed = time.perf_counter() - start
    finally:
        if server:
            server.stop()
    ids = [mid for batch in written for mid in batch]
    with open_store(db) as store:
        every = {"ns": ns, "scopes": ["shared"], "include_forgotten": True}
        stored = store.run("memory_ids", every)
        view = ReadView(include_pending=True).params()
        snapshot = store.run("content_snapshot", {"ns": ns, **view})
        texts = Counter(row["text"] for row in snapshot)
        report = verify_store(store, AuditLog(audit), [ns])  # the chain, anchor and seals
        store.run("delete_namespace", {"ns": ns})
    return {
        "namespace": ns,
        "clients": CLIENTS,
        "per_client": PER_CLIENT,
        "seconds": elapsed,
        "remembers_per_s": len(ids) / elapsed,
        "ids_returned": len(ids),
        "ids_distinct": len(set(ids)),
        "stored": len(stored),
        "stored_match_returned": Counter(r["id"] for r in stored) == Counter(ids),
        "texts_exactly_once": len(texts) == len(ids) and set(texts.values()) == {1},
        "audit_ok": report.ok,
        "audit_versions_checked": report.memories,
        "audit_problems": report.problems,
    }


def _setup(home: Path) -> str:
    """A temporary mragent home with a human (this OS user) and an agent; the token."""
    os.environ.update(
        MRAGENT_HOME=str(home),
        MRAGENT_CREDENTIALS=str(home / "credentials.json"),
        MRAGENT_AUDIT_LOG=str(home / "audit.jsonl"),
    )
    for name in ("MRAGENT_TOKEN", "MRAGENT_TOKEN_FILE", "MRAGENT_PRINCIPAL"):
        os.environ.pop(name, None)
    with editing() as creds:
        creds.add(Principal("human", "bench"), read=["shared"], write=["shared"], user=os_user())
        token = creds.add(Principal("agent", "bench-agent"), read=["shared"], write=["shared"])
    assert token is not None
    return token


async def run(args: argparse.Namespace, token: str, db: str | None) -> dict[str, Any]:
    corpora = [("reference", None, None)]
    if args.musique:
        corpora.append(("musique pool", args.musique, args.pool))
    results: dict[str, Any] = {"latency": {}, "concurrency": {}}
    for label, path, pool in corpora:
        dataset = "musique" if path else None
        data, ns, _ = load_questions_corpus(dataset, path and Path(path), pool and Path(pool))
        with open_store(db) as store:
            ensure_ingested(store, data, ns)
        questions = [q.question for q in data.questions]
        results["latency"][label] = await latency(
            ns, questions, db, token, args.rounds, args.cli_every
        )
        print(label, json.dumps(results["latency"][label], indent=1), flush=True)
    for transport in ("http", "stdio"):
        results["concurrency"][transport] = await concurrency(
            transport, db, token, Path(os.environ["MRAGENT_AUDIT_LOG"])
        )
        print(transport, json.dumps(results["concurrency"][transport], indent=1), flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="Database URL (default: an embedded FalkorDB).")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--cli-every", type=int, default=5, help="Ask every Nth question via the CLI too."
    )
    parser.add_argument("--musique", help="MuSiQue questions file (musique_100.json).")
    parser.add_argument("--pool", help="Its pooled corpus (musique_100_corpus.json).")
    parser.add_argument("--out", type=Path, help="Write the figures here as JSON.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mragent-mcp-bench-") as tmp:
        home = Path(tmp)
        token = _setup(home)
        if not args.db:
            embedded.ensure_running(home)
        db = args.db
        try:
            results = asyncio.run(run(args, token, db))
        finally:
            if not args.db:
                embedded.stop(home)
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
