"""A cold ``mragent recall`` imports only what a recall uses.

A recall is a process's one call in a hook or a script, so its imports are most
of its time. It needs the memory commands' options, the facade's session, the
reader (the indexes, the traversal, synthesis) and the store's driver; it never
needs the bench and its baselines, the dataset readers, the migration, the
trace views (the ``apps`` layer as a whole), evolution, the MCP server, the
integrations, the write path (ingest, its corpus readers, the writer), the
endpoint embedder's HTTP client, the Bolt driver for a FalkorDB URL, or any of
the heavy packages start-up keeps out (:data:`tests.test_startup.HEAVY`).
Each check runs in a fresh interpreter, since this test process has imported
them all already.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid

from mragent.facade import open_memory
from tests.test_startup import HEAVY

NOT_RECALLED = (
    "mragent.apps",
    "mragent.evolution",
    "mragent.mcp_server",
    "mragent.integrations",
    "mragent.memory.ingest",
    "mragent.memory.ingest_source",
    "mragent.memory.writer",
    "mragent.core.corpus_stream",
    "mragent.core.embedding.endpoint",
    "bm25s",
    "ijson",
    "neo4j",
    *HEAVY,
)

# Runs the console script's main with the arguments given as JSON, then reports
# every module loaded, what was printed, and the exit code.
_PROBE = """
import contextlib, io, json, sys
from mragent.cli.app import main
sys.argv = ["mragent", *json.loads(sys.argv[1])]
code = 0
with contextlib.redirect_stdout(io.StringIO()) as printed:
    try:
        main()
    except SystemExit as exc:
        code = exc.code
print(json.dumps([sorted(sys.modules), printed.getvalue(), code]))
"""


def _run(*args: str) -> tuple[list[str], str, int]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(args)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    modules, printed, code = json.loads(done.stdout)
    return modules, printed, code


def _not_recalled(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in NOT_RECALLED)]


def test_recall_command_imports_only_the_read_path() -> None:
    modules, printed, code = _run("recall", "--help")
    assert code == 0 and "--include-pending" in printed  # the command itself was built
    assert "mragent.cli.memory" in modules and "mragent.facade.session" in modules
    assert _not_recalled(modules) == []


def test_a_cold_recall_end_to_end_loads_nothing_it_does_not_use(falkordb_url: str) -> None:
    ns = f"cold-{uuid.uuid4().hex[:8]}"
    with open_memory(ns, principal="human:ana", db=falkordb_url) as memory:
        memory.remember("The Veltrane bell foundry cast its first bell in 1841.")
    modules, printed, code = _run(
        "recall", "When did Veltrane cast its first bell?", "--ns", ns, "--db", falkordb_url,
        "--json",
    )  # fmt: skip
    assert code == 0, printed
    found = json.loads(printed)
    assert "1841" in (found["answer"] or "")
    assert [item["text"] for item in found["context"]] == [
        "The Veltrane bell foundry cast its first bell in 1841."
    ]
    # The read path really ran: the dense index was built and the graph queried.
    assert {"hnswlib", "mragent.memory.reader", "mragent.core.store.falkordb"} <= set(modules)
    assert _not_recalled(modules) == []
