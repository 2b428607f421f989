"""Commands that write on the way (explain and bench ingest their corpus, explain
--persist stores a trace) write as the authenticated caller, within its grants,
and the shared database is started and stopped by humans only."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mragent.apps.views.trace_store import list_traces
from mragent.cli import app
from mragent.core.store import open_store
from mragent.core.store.base import GraphStore
from mragent.memory.credentials import editing
from mragent.memory.ingest import namespace_stats
from mragent.memory.principal import Principal
from tests.fixtures import CHAIN

runner = CliRunner()
QUESTION = "Who founded the company?"


@pytest.fixture
def reader_token(agent_token: str, credentials_path: Path) -> str:
    """agent:peek reads the shared scope and writes none."""
    with editing(credentials_path) as creds:
        token = creds.add(Principal("agent", "peek"), read=["shared"], write=[])
    assert token is not None
    return token


@pytest.fixture
def fresh(falkordb_url: str) -> Iterator[tuple[GraphStore, str]]:
    name = f"t-caller-{uuid.uuid4().hex[:10]}"
    with open_store(falkordb_url) as store:
        yield store, name
        store.run("delete_namespace", {"ns": name})


def _as(token: str, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"MRAGENT_TOKEN": token})
    return result.exit_code, result.output


def _principals(log: Path) -> set[str]:
    if not log.exists():
        return set()
    return {json.loads(line)["principal"] for line in log.read_text().splitlines()}


@pytest.mark.parametrize("command", ["explain", "bench"])
def test_an_agent_without_a_write_grant_cannot_ingest_a_corpus(
    fresh: tuple[GraphStore, str], reader_token: str, corpus_file: Path,
    audit_log_path: Path, command: str,
) -> None:  # fmt: skip
    store, ns = fresh
    args = [QUESTION] if command == "explain" else ["--no-negative", "--unanswerable", "0"]
    code, output = _as(
        reader_token, command, *args, "--ns", ns, "--corpus", str(corpus_file),
        "--db", store.secret_url,
    )  # fmt: skip
    assert code == 3, output
    assert "agent:peek may not write scope 'shared'" in output
    assert namespace_stats(store, ns).get("contents", 0) == 0
    assert _principals(audit_log_path) == set()


def test_a_corpus_is_ingested_as_the_caller_never_as_system_bench(
    fresh: tuple[GraphStore, str], agent_token: str, corpus_file: Path, audit_log_path: Path
) -> None:
    store, ns = fresh
    code, output = _as(
        agent_token, "explain", QUESTION, "--ns", ns, "--corpus", str(corpus_file),
        "--db", store.secret_url,
    )  # fmt: skip
    assert code == 0, output
    assert namespace_stats(store, ns)["contents"] == len(CHAIN["contents"])
    assert _principals(audit_log_path) == {"agent:scout"}
    # An agent's memories wait for a human: none is accepted on its word.
    rows = store.run("memory_pending", {"ns": ns, "scopes": ["shared"], "limit": 1000})
    assert len(rows) == len(CHAIN["contents"])


def test_persisting_a_trace_needs_a_write_grant(
    fresh: tuple[GraphStore, str], reader_token: str, corpus_file: Path
) -> None:
    store, ns = fresh
    done = runner.invoke(
        app, ["ingest", str(corpus_file), "--ns", ns, "--db", store.secret_url]
    )  # the OS user is human:ana
    assert done.exit_code == 0, done.output
    code, output = _as(reader_token, "explain", QUESTION, "--ns", ns, "--persist",
                       "--db", store.secret_url)  # fmt: skip
    assert code == 3, output
    assert list_traces(store, ns) == []
    code, output = _as(reader_token, "explain", QUESTION, "--ns", ns, "--db", store.secret_url)
    assert code == 0, output


@pytest.mark.parametrize("verb", ["start", "stop"])
def test_an_agent_cannot_start_or_stop_the_database(
    agent_token: str, tmp_path: Path, verb: str
) -> None:
    result = runner.invoke(
        app, ["db", verb], env={"MRAGENT_TOKEN": agent_token, "MRAGENT_HOME": str(tmp_path)}
    )
    assert result.exit_code == 3, result.output
    assert f"db {verb} needs a human principal, not agent:scout" in result.output
    assert not (tmp_path / "falkordb").exists()
