"""The audit log and the credentials around it refuse what would silently weaken
them: a blank token, a key file others can read, a log path that is a directory, a
lock held by a hung process, and an agent reading other scopes' records."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mragent.cli import app
from mragent.core.errors import AccessDenied
from mragent.core.store.base import GraphStore
from mragent.memory.audit import AuditLog
from mragent.memory.audit_records import AuditError, key_path, read_key
from mragent.memory.auth import authenticate
from mragent.memory.principal import Principal
from mragent.memory.writer import MemoryWriter

runner = CliRunner()
ANA = Principal("human", "ana")


@pytest.mark.parametrize("blank", ["   ", "\n", "\t \n"])
def test_a_blank_token_is_refused_not_read_as_the_os_human(
    agent_token: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, blank: str
) -> None:
    monkeypatch.setenv("MRAGENT_TOKEN", blank)
    with pytest.raises(AccessDenied, match="MRAGENT_TOKEN is empty"):
        authenticate(None, required=False)
    monkeypatch.delenv("MRAGENT_TOKEN")
    key = tmp_path / "token"
    key.write_text(blank)
    key.chmod(0o600)
    monkeypatch.setenv("MRAGENT_TOKEN_FILE", str(key))
    with pytest.raises(AccessDenied, match="is empty"):
        authenticate(None, required=False)
    key.write_text("")
    with pytest.raises(AccessDenied, match="is empty"):
        authenticate(None, required=False)
    with pytest.raises(AccessDenied, match="token= is empty"):
        authenticate(None, token=blank, required=False)


def test_an_audit_key_open_to_others_is_refused(audit_log_path: Path) -> None:
    log = AuditLog(audit_log_path)
    log.key()
    key_path(audit_log_path).chmod(0o644)
    with pytest.raises(AuditError, match="open to others"):
        read_key(audit_log_path)
    key_path(audit_log_path).chmod(0o600)
    assert len(read_key(audit_log_path)) == 32


def test_an_audit_log_that_is_a_directory_is_one_line(falkordb_url: str, tmp_path: Path) -> None:
    where = tmp_path / "logs"
    where.mkdir()
    for args in (
        ["remember", "The Vega ferry sails at nine.", "--ns", "t-adir", "--db", falkordb_url,
         "--principal", "human:ana"],
        ["audit", "show"],
        ["audit", "verify", "--chain-only"],
    ):  # fmt: skip
        result = runner.invoke(app, [*args, "--audit-log", str(where)])
        assert result.exit_code == 1, result.output
        assert result.stderr.strip().count("\n") == 0
        assert "must be a regular file" in result.stderr and "Traceback" not in result.output


def test_a_hung_lock_holder_times_out_every_writer_naming_the_lock(
    falkor_store: GraphStore, audit_log_path: Path
) -> None:
    log = AuditLog(audit_log_path)
    log.lock_timeout = 0.5
    audit_log_path.parent.mkdir(parents=True, exist_ok=True)
    hold = (
        "import fcntl, sys, time; f = open(sys.argv[1], 'a'); "
        "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", hold, str(log.lock_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        ns = f"t-lock-{uuid.uuid4().hex[:8]}"
        started = time.monotonic()
        with pytest.raises(AuditError, match=str(log.lock_path)):
            MemoryWriter(falkor_store, ns, log).remember("The Vega ferry sails.", principal=ANA)
        assert time.monotonic() - started < 10
    finally:
        holder.kill()
        holder.wait()
    # The lock is free again once the holder is gone.
    with open(log.lock_path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)


def test_an_agent_sees_only_its_scopes_records_in_audit_show(
    falkor_store: GraphStore, audit_log_path: Path, agent_token: str
) -> None:
    ns = f"t-show-{uuid.uuid4().hex[:8]}"
    memories = MemoryWriter(falkor_store, ns, AuditLog(audit_log_path))
    try:
        private = memories.remember("The vault code is 4711.", principal=ANA, scope="ops")
        memories.forget(private.id, principal=ANA, reason="the code moved to Bergen",
                        scope="ops")  # fmt: skip
        shared = memories.remember("The Vega ferry sails at nine.", principal=ANA)
        result = runner.invoke(app, ["audit", "show", "--json"], env={"MRAGENT_TOKEN": agent_token})
        assert result.exit_code == 0, result.output
        shown = json.loads(result.stdout)
        assert private.id not in result.stdout and "Bergen" not in result.stdout
        assert shared.id in [r["target"] for r in shown]
        assert len(shown) == 3  # every record is listed, the others' without their contents
        human = runner.invoke(app, ["audit", "show", "--json"])
        assert "Bergen" in human.stdout and private.id in human.stdout
    finally:
        falkor_store.run("delete_namespace", {"ns": ns})
    assert os.environ.get("MRAGENT_TOKEN") is None
