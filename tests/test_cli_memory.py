"""The memory commands end to end through the CLI, on the embedded FalkorDB."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from typer.testing import CliRunner

from mragent.cli import app

runner = CliRunner()


def _cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def test_remember_recall_correct_forget_round_trip(falkordb_url: str, audit_log_path: Path) -> None:
    ns = f"cli-mem-{uuid.uuid4().hex[:8]}"
    common = ("--ns", ns, "--db", falkordb_url)
    code, output = _cli(
        "remember",
        "Ada Lovelace was born in London.",
        "--principal",
        "human:ana",
        "--json",
        *common,
    )
    assert code == 0, output
    first = json.loads(output)
    assert first["trust"] == "accepted" and first["created"]

    code, output = _cli("recall", "Where was Ada Lovelace born?", "--json", *common)
    assert code == 0, output
    assert json.loads(output)["answer"] == "London"

    code, output = _cli(
        "correct",
        first["id"],
        "Ada Lovelace was born in Marylebone, London.",
        "--principal",
        "human:ana",
        "--json",
        *common,
    )
    assert code == 0, output
    second = json.loads(output)
    code, output = _cli("history", second["id"], "--json", *common)
    versions = json.loads(output)
    assert [v["id"] for v in versions] == [first["id"], second["id"]]
    assert versions[0]["superseded_at"] is not None and versions[1]["superseded_at"] is None

    code, output = _cli("forget", second["id"], "--principal", "human:ana", *common)
    assert code == 2 and "--reason" in output  # a reason is required
    code, output = _cli(
        "forget", second["id"], "--reason", "wrong", "--principal", "human:ana", *common
    )
    assert code == 0 and "forgot 2 version(s)" in output
    code, output = _cli("recall", "Where was Ada Lovelace born?", "--json", *common)
    assert json.loads(output)["context"] == []

    code, output = _cli(
        "remember", "Ada Lovelace was born in London.", "--principal", "human:ana", *common
    )
    assert code == 3 and "forgotten" in output  # refused without --readmit

    code, output = _cli("audit", "verify", "--db", falkordb_url, "--ns", ns)
    assert code == 0 and "3 record(s), intact" in output, output
    assert len(audit_log_path.read_text().splitlines()) == 3  # the refusal wrote nothing


def test_agent_memory_waits_for_a_human_review(falkordb_url: str) -> None:
    ns = f"cli-rev-{uuid.uuid4().hex[:8]}"
    common = ("--ns", ns, "--db", falkordb_url)
    code, output = _cli(
        "remember", "The build server is in Oslo.", "--principal", "agent:scout", "--json", *common
    )
    memory = json.loads(output)
    assert memory["trust"] == "pending"
    code, output = _cli("recall", "Where is the build server?", "--json", *common)
    assert json.loads(output)["context"] == []  # pending is not read by default
    code, output = _cli(
        "recall", "Where is the build server?", "--include-pending", "--json", *common
    )
    assert json.loads(output)["answer"] == "Oslo"

    code, output = _cli("review", "list", *common)
    assert memory["id"] in output
    code, output = _cli("review", "accept", memory["id"], "--principal", "agent:scout", *common)
    assert code == 3 and "human" in output
    code, output = _cli("review", "accept", memory["id"], "--principal", "human:ana", *common)
    assert code == 0, output
    code, output = _cli("recall", "Where is the build server?", "--json", *common)
    assert json.loads(output)["answer"] == "Oslo"


def test_explain_and_recall_read_only_the_scopes_asked_for(falkordb_url: str) -> None:
    ns = f"cli-scope-{uuid.uuid4().hex[:8]}"
    common = ("--ns", ns, "--db", falkordb_url)
    code, output = _cli(
        "remember", "The vault code is kept in Zurich.", "--scope", "team-a",
        "--principal", "human:ana", *common,
    )  # fmt: skip
    assert code == 0, output
    question = "Where is the vault code kept?"
    code, output = _cli("recall", question, "--json", *common)
    assert json.loads(output)["context"] == []  # the default scope is 'shared'
    code, output = _cli("recall", question, "--scope", "team-a", "--json", *common)
    assert json.loads(output)["answer"] == "Zurich"
    code, output = _cli("explain", question, *common)
    assert code == 0 and "Zurich" not in output
    code, output = _cli("explain", question, "--scope", "team-a", *common)
    assert code == 0 and "Zurich" in output, output
