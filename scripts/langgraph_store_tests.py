"""Run LangGraph's own store tests against MragentStore.

Usage:
    python scripts/langgraph_store_tests.py LANGGRAPH_CHECKOUT [--db URL] [pytest args...]

LangGraph's wheel publishes no store tests; its repository keeps them in
``libs/checkpoint/tests/test_store.py``, written against ``InMemoryStore``. This
script copies that file (and the test helpers it imports) into a temporary
directory, binds the name ``InMemoryStore`` to a subclass of
:class:`~mragent.integrations.langgraph.MragentStore` that opens a fresh
namespace per store (as ``human:langgraph-tests``, on the embedded FalkorDB or
``--db``), and runs pytest there. The tests need ``pytest-mock`` and
``pytest-asyncio`` besides mragent's ``langgraph`` extra. Nothing is copied
into this repository; the results are listed in
``benchmarks/results/langgraph-store-tests.md``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ADAPTER = '''"""InMemoryStore, as LangGraph's store tests construct it, bound to MragentStore."""
import os
import uuid
from typing import Any

from mragent import open_memory
from mragent.integrations.langgraph import MragentStore


class InMemoryStore(MragentStore):
    def __init__(self, **config: Any) -> None:  # index= and ttl= configure LangGraph's own store
        db = os.environ.get("MRAGENT_LANGGRAPH_TESTS_DB") or None
        ns = "langgraph-" + uuid.uuid4().hex[:12]
        super().__init__(open_memory(ns, principal="human:langgraph-tests", db=db),
                         owns_session=True)
'''
IMPORT = "from langgraph.store.memory import InMemoryStore"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path, help="a clone of LangGraph's repository")
    parser.add_argument("--db", help="the engine to run on (default: the embedded FalkorDB)")
    args, pytest_args = parser.parse_known_args()
    tests = args.checkout / "libs" / "checkpoint" / "tests"
    source = tests / "test_store.py"
    if not source.is_file():
        parser.error(f"{source}: no such file (is {args.checkout} a LangGraph checkout?)")
    text = source.read_text(encoding="utf-8")
    if IMPORT not in text:
        parser.error(f"{source}: does not import InMemoryStore as expected ({IMPORT!r})")
    with tempfile.TemporaryDirectory(prefix="mragent-langgraph-") as work:
        root = Path(work)
        (root / "tests").mkdir()
        (root / "tests" / "__init__.py").write_text("")
        for helper in tests.glob("*utils*.py"):
            shutil.copy(helper, root / "tests" / helper.name)
        (root / "mragent_adapter.py").write_text(ADAPTER)
        (root / "test_store.py").write_text(
            text.replace(IMPORT, "from mragent_adapter import InMemoryStore")
        )
        (root / "pytest.ini").write_text("[pytest]\nasyncio_mode = auto\n")
        env = {**os.environ, "MRAGENT_LANGGRAPH_TESTS_DB": args.db or ""}
        command = [sys.executable, "-m", "pytest", "test_store.py", "-p", "no:cacheprovider"]
        return subprocess.run([*command, *pytest_args], cwd=root, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
