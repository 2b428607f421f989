"""Coding-agent hooks on the embedded FalkorDB: ``hook recall`` prints memories with their
provenance within a token budget, ``hook remember`` keeps only marked lines (a prompt
without the marker writes nothing), and the resident server answers the same events."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mragent import open_memory
from mragent.cli import app
from mragent.core.errors import ConfigError
from mragent.core.store import open_store
from mragent.integrations.hook_server import HookSettings, running
from mragent.integrations.hooks import HEADER, marked_texts, parse_event

runner = CliRunner()
FACT = "The build server is in Oslo."
OTHER = "The staging database runs on port 5433."
PROMPT = "Where is the build server? I need to deploy."


def _event(prompt: str) -> str:
    return json.dumps(
        {"session_id": "s1", "hook_event_name": "UserPromptSubmit", "cwd": "/w", "prompt": prompt}
    )


@pytest.fixture
def ns(falkordb_url: str) -> Iterator[str]:
    name = f"t-hook-{uuid.uuid4().hex[:10]}"
    yield name
    with open_store(falkordb_url) as opened:
        opened.run("delete_namespace", {"ns": name})


@pytest.fixture
def sock() -> Iterator[Path]:
    """A socket path short enough for AF_UNIX (108 bytes), unlike pytest's tmp paths."""
    with tempfile.TemporaryDirectory(dir="/tmp") as folder:
        yield Path(folder) / "hook.sock"


def _hook(*args: str, stdin: str) -> tuple[int, str]:
    result = runner.invoke(app, ["hook", *args], input=stdin)
    return result.exit_code, result.output


def _count(falkordb_url: str, ns: str) -> int:
    with open_store(falkordb_url) as opened:
        rows = opened.run("memory_ids", {"ns": ns, "scopes": ["shared"], "include_forgotten": True})
    return len(rows)


def test_only_marked_lines_are_texts_to_remember() -> None:
    prompt = "Fix the tests.\n  Remember: the CI runs on Fridays  \nremember:\nremember:x"
    assert marked_texts(prompt) == ["the CI runs on Fridays", "x"]
    assert marked_texts("please remember: this is mid-sentence") == []
    assert marked_texts("note! keep it", "note!") == ["keep it"]
    with pytest.raises(ConfigError, match="empty"):
        marked_texts("anything", " ")
    with pytest.raises(ConfigError, match="prompt"):
        parse_event('{"message": "no prompt"}')


def test_a_prompt_without_the_prefix_writes_nothing(
    falkordb_url: str, ns: str, audit_log_path: Path
) -> None:
    common = ("--ns", ns, "--db", falkordb_url, "--principal", "agent:scout")
    code, output = _hook("remember", *common, stdin=_event(PROMPT))
    assert (code, output) == (0, "")
    assert _count(falkordb_url, ns) == 0
    assert not audit_log_path.exists() or '"remember"' not in audit_log_path.read_text()

    marked = f"Deploy it.\nremember: {FACT}\nand nothing else"
    code, output = _hook("remember", *common, stdin=_event(marked))
    assert code == 0, output
    assert output.startswith("mragent remembered ") and "(pending)" in output
    with open_memory(ns, principal="human:ana", db=falkordb_url) as memory:
        (pending,) = memory.pending()
        assert memory.get(pending["id"]).text == FACT  # the marked text, not the prompt
        assert memory.get(pending["id"]).source == "hook"
    code, output = _hook("remember", *common, "--prefix", "keep:", stdin=_event(marked))
    assert (code, output) == (0, "")  # another marker: the line is not marked for it


def test_recall_prints_memories_with_provenance_within_the_budget(
    falkordb_url: str, ns: str
) -> None:
    with open_memory(ns, principal="human:ana", db=falkordb_url) as memory:
        written = memory.remember(FACT, source="ops wiki")
        memory.remember(OTHER)
    common = ("--ns", ns, "--db", falkordb_url)
    code, output = _hook("recall", *common, stdin=_event(PROMPT))
    assert code == 0, output
    lines = output.splitlines()
    assert lines[0] == HEADER
    assert lines[1] == f"- [{written.id} accepted human:ana ops wiki] {FACT}"
    code, output = _hook("recall", *common, "--max-tokens", "12", stdin=_event(PROMPT))
    assert code == 0 and len(output.split()) <= 12 + 1  # the cut is marked with one "…"
    assert output.splitlines()[1].endswith("…")
    code, output = _hook("recall", *common, stdin=_event("   "))
    assert (code, output) == (0, "")
    code, output = _hook("recall", *common, stdin="not json")
    assert code == 2 and "not JSON" in output
    code, output = _hook("recall", *common, "--embedder", "hashing:32", stdin=_event(PROMPT))
    assert code == 2 and "refusing a read" in output  # the namespace's stamp decides


def test_the_resident_server_answers_what_the_cli_would(
    falkordb_url: str, ns: str, sock: Path
) -> None:
    with open_memory(ns, principal="human:ana", db=falkordb_url) as memory:
        written = memory.remember(FACT)
    cold = _hook("recall", "--ns", ns, "--db", falkordb_url, stdin=_event(PROMPT))
    agent = open_memory(ns, principal="agent:scout", db=falkordb_url)
    with running(agent, sock, HookSettings(max_tokens=200)):
        assert sock.stat().st_mode & 0o777 == 0o600
        warm = _hook("recall", "--ns", ns, "--socket", str(sock), stdin=_event(PROMPT))
        assert warm == cold and written.id in warm[1]
        code, output = _hook("recall", "--ns", "other", "--socket", str(sock), stdin=_event(PROMPT))
        assert code == 2 and "answers namespace" in output
        code, output = _hook("recall", "--ns", ns, "--socket", str(sock), stdin="{}")
        assert code == 2 and "prompt" in output
        marked = _event(f"remember: {OTHER}")
        code, output = _hook("remember", "--ns", ns, "--socket", str(sock), stdin=marked)
        assert code == 0 and "(pending)" in output  # the server's principal: the agent
        assert _hook("remember", "--ns", ns, "--socket", str(sock), stdin=_event(PROMPT)) == (0, "")
    assert not sock.exists()
    assert _count(falkordb_url, ns) == 2
    sock.write_text("")  # a file left where the socket was: the hook opens the memory itself
    left = _hook(
        "recall", "--ns", ns, "--db", falkordb_url, "--socket", str(sock), stdin=_event(PROMPT)
    )
    assert left == cold


def test_the_installed_entry_point_runs_a_hook(falkordb_url: str, ns: str, tmp_path: Path) -> None:
    with open_memory(ns, principal="human:ana", db=falkordb_url) as memory:
        written = memory.remember(FACT)
    env = {**os.environ, "MRAGENT_HOME": str(tmp_path)}  # no server socket there
    done = subprocess.run(
        [sys.executable, "-c", "from mragent.cli import main; main()", "hook", "recall",
         "--ns", ns, "--db", falkordb_url],
        input=_event(PROMPT), capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"[{written.id} accepted human:ana] {FACT}" in done.stdout
