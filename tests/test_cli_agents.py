"""The command line as agents and scripts meet it: JSON on stdout for every command,
memory text printed verbatim, --version, and principals that are authenticated."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mragent import __version__
from mragent.cli import app
from mragent.core.store import open_store

runner = CliRunner()
MARKUP = "The [bold]vault[/bold] code is :thumbs_up: kept in [red]Zurich[/red]."
LONG = "The Lyra observatory archive, " + "with its long corridor of plates, " * 8 + "is in Oslo."
ENTRY = [sys.executable, "-c", "from mragent.cli import main; main()"]


@pytest.fixture
def ns(falkordb_url: str) -> Iterator[str]:
    name = f"t-cli-{uuid.uuid4().hex[:10]}"
    yield name
    with open_store(falkordb_url) as store:
        store.run("delete_namespace", {"ns": name})


def _cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), env=env)
    return result.exit_code, result.stdout, result.stderr


def test_version() -> None:
    code, out, _ = _cli("--version")
    assert code == 0 and out.strip() == f"mragent {__version__}"


def test_json_piped_from_the_real_entry_point_is_valid_and_verbatim(
    falkordb_url: str, ns: str
) -> None:
    common = ["--ns", ns, "--db", falkordb_url, "--principal", "human:ana"]
    for text in (MARKUP, LONG):
        done = subprocess.run(
            [*ENTRY, "remember", text, *common], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
    # Piped stdout, no terminal: the JSON must parse and hold the texts exactly.
    done = subprocess.run(
        [*ENTRY, "recall", "Where is the vault code kept?", "--json", *common],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert MARKUP in [item["text"] for item in found["context"]]
    done = subprocess.run(
        [*ENTRY, "recall", "Where is the Lyra observatory archive?", *common],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert LONG in done.stdout.splitlines()[1]  # one line, unwrapped


def test_human_output_prints_markup_verbatim(falkordb_url: str, ns: str) -> None:
    common = ["--ns", ns, "--db", falkordb_url]
    code, out, err = _cli("remember", MARKUP, "--principal", "agent:scout", "--json", *common)
    assert code == 0, err
    memory = json.loads(out)["id"]
    question = "Where is the vault code kept?"
    for args in (
        ["recall", question, "--include-pending"],
        ["explain", question, "--include-pending"],
        ["history", memory],
        ["review", "list"],
    ):
        code, out, err = _cli(*args, *common)
        assert code == 0, err
        assert "[bold]vault[/bold]" in out and ":thumbs_up:" in out, (args, out)


def test_every_command_prints_json_on_stdout(
    falkordb_url: str, ns: str, corpus_file: Path, tmp_path: Path
) -> None:
    db = ["--db", falkordb_url]
    common = ["--ns", ns, *db]
    ana, bob = ["--principal", "human:ana"], ["--principal", "human:bob"]
    code, out, err = _cli("remember", MARKUP, "--principal", "agent:scout", "--json", *common)
    first = json.loads(out)["id"]
    second = json.loads(_cli("remember", LONG, *ana, "--json", *common)[1])["id"]
    file = tmp_path / "export.json"
    commands = [
        ["recall", "Where is the vault code kept?", *common],
        ["history", first, *common],
        ["correct", second, LONG.replace("Oslo", "Bergen"), *ana, *common],
        ["review", "list", *common],
        ["review", "accept", first, *bob, *common],
        ["review", "reject", first, *bob, *common],
        ["trust", "grant", "agent:scout", *ana, *common],
        ["trust", "revoke", "agent:scout", *ana, *common],
        ["forget", second, "--reason", "test", *ana, *common],
        ["export", str(file), *common],
        ["import", str(file), "--ns", f"{ns}-copy", *db, *ana],
        ["ingest", str(corpus_file), "--ns", f"{ns}-chain", *db, *ana],
        ["explain", "Where was the founder of Acme born?", "--ns", f"{ns}-chain", *db],
        ["migrate", *ana, *common],
        ["purge", second, "--reason", "test", *ana, *common],
        ["audit", "verify", "--ns", ns, *db],
        ["audit", "show"],
        ["genome", "list"],
        ["genome", "show", "fast"],
        ["bench", "--corpus", str(corpus_file), "--no-negative", *db],
        ["principal", "add", "human:ana"],
        ["principal", "add", "agent:scout"],
        ["principal", "list"],
        ["principal", "revoke", "agent:scout"],
    ]
    try:
        for args in commands:
            code, out, err = _cli(*args, "--json")
            assert code == 0, (args, err, out)
            json.loads(out)  # one JSON document, nothing else on stdout
    finally:
        with open_store(falkordb_url) as store:
            for name in (f"{ns}-copy", f"{ns}-chain"):
                store.run("delete_namespace", {"ns": name})


def test_bench_and_evolve_keep_their_output_path_under_out(
    falkordb_url: str, corpus_file: Path, tmp_path: Path
) -> None:
    report = tmp_path / "bench.json"
    code, out, err = _cli(
        "bench", "--corpus", str(corpus_file), "--no-negative", "--db", falkordb_url,
        "--out", str(report), "--json",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out) == json.loads(report.read_text())
    evolved = tmp_path / "evolve"
    code, out, err = _cli(
        "evolve", "--corpus", str(corpus_file), "--db", falkordb_url, "--generations", "0",
        "--population", "4", "--split", "0", "--out", str(evolved), "--json",
    )  # fmt: skip
    assert code in (0, 3), err  # the gate may or may not pass on four contents
    assert json.loads(out) == json.loads((evolved / "optimize.report.json").read_text())


# --- authenticated principals ----------------------------------------------------------


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


def test_a_claimed_principal_must_be_the_authenticated_one(
    falkordb_url: str, ns: str, agent_token: str, audit_log_path: Path
) -> None:
    common = ["--ns", ns, "--db", falkordb_url]
    code, _, err = _cli("remember", MARKUP, "--principal", "human:bob", *common)
    assert code == 3
    assert "human:bob is not the authenticated principal human:ana" in _one_line(err)
    assert not audit_log_path.exists()
    as_agent = {"MRAGENT_TOKEN": agent_token}
    code, out, err = _cli("remember", MARKUP, "--json", *common, env=as_agent)
    assert code == 0, err
    memory = json.loads(out)
    assert memory["trust"] == "pending"
    # Review (even claiming a human name), purge, trust and the credentials: humans only.
    for args in (
        ["review", "accept", memory["id"], "--principal", "human:scout"],
        ["review", "accept", memory["id"]],
        ["purge", memory["id"], "--reason", "x"],
        ["trust", "grant", "agent:scout"],
    ):
        code, _, err = _cli(*args, *common, env=as_agent)
        assert code == 3, (args, err)
        line = _one_line(err)
        assert "needs a human principal" in line or "not the authenticated principal" in line
    code, _, err = _cli("principal", "add", "agent:other", env=as_agent)
    assert code == 3 and "needs a human principal" in _one_line(err)
    code, _, err = _cli("recall", "Where is the vault code kept?", "--scope", "hr", *common,
                        env=as_agent)  # fmt: skip
    assert code == 3 and "may not read scope 'hr'" in _one_line(err)
    code, _, err = _cli("remember", LONG, "--scope", "hr", *common, env=as_agent)
    assert code == 3 and "may not write scope 'hr'" in _one_line(err)
    code, _, err = _cli("recall", "Where?", *common, env={"MRAGENT_TOKEN": "mrg_wrong"})
    assert code == 3 and "matches no principal" in _one_line(err)
    actions = [json.loads(line)["action"] for line in audit_log_path.read_text().splitlines()]
    assert actions == ["remember"]  # nothing refused left a trace in the log

    code, _, err = _cli("review", "accept", memory["id"], *common)  # the OS user's human
    assert code == 0, err
    code, out, _ = _cli("recall", "Where is the vault code kept?", "--json", *common,
                        env=as_agent)  # fmt: skip
    assert [item["id"] for item in json.loads(out)["context"]] == [memory["id"]]


def test_an_agents_correction_and_forget_go_through_review(
    falkordb_url: str, ns: str, agent_token: str
) -> None:
    common = ["--ns", ns, "--db", falkordb_url]
    as_agent = {"MRAGENT_TOKEN": agent_token}
    accepted = json.loads(_cli("remember", LONG, "--json", *common)[1])
    code, out, err = _cli("correct", accepted["id"], LONG.replace("Oslo", "Bergen"), "--json",
                          *common, env=as_agent)  # fmt: skip
    assert code == 0, err
    fix = json.loads(out)
    assert fix["trust"] == "pending" and fix["awaits_review"] == [accepted["id"]]
    code, out, _ = _cli("recall", "Where is the Lyra observatory archive?", "--json", *common)
    assert json.loads(out)["answer"] == "Oslo"  # the accepted version still answers
    code, _, err = _cli("forget", accepted["id"], "--reason", "mine now", *common, env=as_agent)
    assert code == 3 and "only memories it wrote" in _one_line(err)

    own = json.loads(_cli("remember", MARKUP, "--json", *common, env=as_agent)[1])
    code, _, err = _cli("forget", own["id"], "--reason", "wrong", *common, env=as_agent)
    assert code == 0, err
    code, out, _ = _cli("review", "list", "--json", *common)
    queue = json.loads(out)
    assert [row["id"] for row in queue["pending"]] == [fix["id"]]
    assert [row["corrects"] for row in queue["pending"]] == [[accepted["id"]]]
    assert [row["id"] for row in queue["forgotten"]] == [own["id"]]
    code, out, err = _cli("review", "reject", own["id"], *common)
    assert code == 0 and "restored" in out, err
    code, out, _ = _cli("review", "accept", fix["id"], *common)
    code, out, _ = _cli("recall", "Where is the Lyra observatory archive?", "--json", *common)
    assert json.loads(out)["answer"] == "Bergen"
