"""Where an MCP recall over HTTP spends the server's time: py-spy on the server process.

Starts ``mragent mcp --transport http`` on the reference corpus (a temporary home
and embedded FalkorDB, as ``mcp_bench.py`` does), warms every question, then samples
the server with py-spy (``pip install py-spy``) while one client asks the questions
in a loop, each followed by a ``list_tools`` (the transport with no memory work). It
prints the client's p50s and the share of the server's sampled CPU time spent under
each part: the recall itself (mragent's tool and everything below it), the MCP SDK's
HTTP handling and JSON-RPC serialisation, and the rest (event loop, sockets).

Usage::

    python benchmarks/mcp_profile.py [--seconds 20] [--raw profile.txt]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import mcp_bench as bench

from mragent.apps.bench import ensure_ingested
from mragent.apps.datasets import load_questions_corpus
from mragent.core.store import embedded, open_store

# A sample belongs to the first part whose frame it passes through (outermost first).
PARTS = (
    ("recall (mragent's tool and below)", "mragent/mcp_server/tools.py"),
    ("response serialisation (SDK)", "_to_jsonrpc_response"),
    ("response serialisation (SDK)", "ServerRunner._serialize"),
    ("HTTP and JSON-RPC handling (SDK, Starlette, uvicorn)", "(mcp/"),
    ("HTTP and JSON-RPC handling (SDK, Starlette, uvicorn)", "(starlette/"),
    ("HTTP and JSON-RPC handling (SDK, Starlette, uvicorn)", "(uvicorn/"),
)


def shares(raw: Path) -> dict[str, float]:
    """Each part's share (%) of the sampled stacks of py-spy's raw output."""
    counts: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        total += int(n)
        frames = stack.split(";")
        part = "event loop, sockets and threads"
        for label, marker in PARTS:
            if any(marker in frame for frame in frames):
                part = label
                break
        counts[part] += int(n)
    return {part: round(100 * n / total, 1) for part, n in counts.most_common()}


async def profile(token: str, seconds: float, raw: Path) -> dict[str, object]:
    data, ns, _ = load_questions_corpus(None, None, None)
    with open_store(None) as store:
        ensure_ingested(store, data, ns)
    questions = [q.question for q in data.questions]
    server = bench.HttpServer(ns, None)
    recalls: list[float] = []
    tools: list[float] = []
    try:
        async with bench.http_client(server.url, token) as client:
            for question in questions:
                await bench._mcp_recall(client, question)
            spy = subprocess.Popen(
                ["py-spy", "record", "--pid", str(server.proc.pid), "--rate", "250",
                 "--format", "raw", "-o", str(raw), "--duration", str(int(seconds) + 2),
                 "--nonblocking"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            time.sleep(1.0)
            start = time.monotonic()
            while time.monotonic() - start < seconds:
                for question in questions:
                    recalls.append(await bench._mcp_recall(client, question))
                    tools.append(await bench._list_tools(client))
            spy.wait()
    finally:
        server.stop()
    return {
        "recalls": len(recalls),
        "recall_p50_ms": round(statistics.median(recalls), 2),
        "list_tools_p50_ms": round(statistics.median(tools), 2),
        "server_cpu_shares_pct": shares(raw),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="how long to sample")
    parser.add_argument("--raw", type=Path, help="keep py-spy's raw stacks here")
    args = parser.parse_args()
    if shutil.which("py-spy") is None:
        parser.error("py-spy is not installed (pip install py-spy)")
    with tempfile.TemporaryDirectory(prefix="mragent-mcp-profile-") as tmp:
        home = Path(tmp)
        token = bench._setup(home)
        embedded.ensure_running(home)
        try:
            raw = args.raw or home / "profile.txt"
            result = asyncio.run(profile(token, args.seconds, raw))
        finally:
            embedded.stop(home)
    for key, value in result.items():
        print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
