"""One validation on every write path: remember, correct and the facade (the MCP
tools are facade calls) bound titles, sources, tags and cues as ingest does, and
wrong argument types are one line naming the argument."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mragent import open_memory
from mragent.cli import app
from mragent.core.corpus import MAX_NAME, MAX_TEXT
from mragent.core.errors import ArgumentError, ConfigError
from mragent.core.store.base import GraphStore
from mragent.facade import MemorySession
from mragent.memory.ingest import namespace_stats

runner = CliRunner()
TEXT = "The Vega ferry sails at nine."
LONG = "x" * (MAX_NAME + 1)


@pytest.fixture
def memory(falkor_store: GraphStore) -> Iterator[MemorySession]:
    ns = f"t-limit-{uuid.uuid4().hex[:10]}"
    with open_memory(ns, principal="agent:bot", store=falkor_store) as session:
        yield session
    falkor_store.run("delete_namespace", {"ns": ns})


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"title": "t" * 100_000}, "--title is 100000 characters (limit 200)"),
        ({"source": "s" * 10_000}, "--source is 10000 characters (limit 200)"),
        ({"tags": ["g" * 5_000]}, "--tag[0] is 5000 characters (limit 200)"),
        ({"cues": ["ok", LONG]}, f"--cue[1] is {MAX_NAME + 1} characters"),
    ],
)
def test_the_facade_bounds_names_as_ingest_does(
    memory: MemorySession, audit_log_path: Path, options: dict, needle: str
) -> None:
    with pytest.raises(ConfigError, match=re.escape(needle)):
        memory.remember(TEXT, **options)
    assert namespace_stats(memory.store, memory.ns).get("contents", 0) == 0
    assert not audit_log_path.exists() or audit_log_path.read_text() == ""


def test_correct_bounds_the_text(memory: MemorySession) -> None:
    written = memory.remember(TEXT)
    with pytest.raises(ConfigError, match=f"limit {MAX_TEXT}"):
        memory.correct(written.id, "y" * (MAX_TEXT + 1))


def test_the_cli_bounds_names_in_one_line(falkordb_url: str) -> None:
    ns = f"t-limit-{uuid.uuid4().hex[:10]}"
    result = runner.invoke(
        app, ["remember", TEXT, "--title", LONG, "--ns", ns, "--db", falkordb_url,
              "--principal", "human:ana"],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert f"--title is {MAX_NAME + 1} characters (limit {MAX_NAME})" in result.stderr


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda m: m.remember(42), "text must be a string, got int"),
        (lambda m: m.remember(TEXT, tags=5), "tags must be a string or a list of strings"),
        (lambda m: m.remember(TEXT, readmit="yes"), "readmit must be True or False"),
        (lambda m: m.remember(TEXT, scope=3), "scope must be a string"),
        (lambda m: m.recall(42), "question must be a string, got int"),
        (lambda m: m.recall("Where?", scopes=[1]), r"scopes\[0\] must be a string"),
        (lambda m: m.recall("Where?", include_pending="no"), "include_pending must be True"),
        (lambda m: m.history(None), "memory_id must be a string"),
        (lambda m: m.forget("x", reason=None), "reason must be a string"),
    ],
)
def test_wrong_types_are_one_line_naming_the_argument(
    memory: MemorySession, call: object, needle: str
) -> None:
    with pytest.raises(ArgumentError, match=needle) as caught:
        call(memory)  # type: ignore[operator]
    assert isinstance(caught.value, TypeError) and "\n" not in str(caught.value)


def test_one_scope_string_is_one_scope(memory: MemorySession) -> None:
    memory.remember("The Vega ferry sails at nine from the north pier.")
    found = memory.recall("When does the Vega ferry sail?", scopes="shared",
                          include_pending=True)  # fmt: skip
    assert [item.scope for item in found.context][:1] == ["shared"]
    with open_memory(memory.ns, principal="agent:bot", store=memory.store,
                     read_scopes="ops") as other:  # fmt: skip
        assert other.read_scopes == ("ops",)


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"principal": 5}, "principal must be a string, got int"),
        ({"token": 5}, "token must be a string, got int"),
        ({"genome": 5}, "genome must be Genome or str or None, got int"),
        ({"embedder": 5}, "embedder must be an Embedder or a spec string, got int"),
        ({"audit_log": 5}, "audit_log must be Path or str or None, got int"),
    ],
)
def test_open_memory_checks_its_argument_types(
    falkor_store: GraphStore, options: dict, needle: str
) -> None:
    with pytest.raises(ArgumentError, match=needle):
        open_memory("t-types", store=falkor_store, **{"principal": "agent:bot", **options})
