"""The stdio MCP server answers a request holding a lone surrogate with an error
(the SDK's parser would drop it unanswered and the client would wait forever)."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the MCP server tests need the mcp extra")
from mragent.mcp_server.stdio import screen_line

ENTRY = [sys.executable, "-c", "from mragent.cli import main; main()"]
LONE = '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"remember",' \
       '"arguments":{"text":"x \\ud800 y"}}}'  # fmt: skip


def test_a_request_with_a_lone_surrogate_keeps_its_id_and_loses_its_text() -> None:
    screened = json.loads(screen_line(LONE))
    assert screened["id"] == 7 and screened["method"] == "tools/call"
    assert "text" not in json.dumps(screened["params"])
    fine = '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"text":"\\u00e9"}}'
    assert screen_line(fine) == fine
    assert screen_line('{"text": "\\ud83d\\ude00"}') == '{"text": "\\ud83d\\ude00"}'  # a pair


def _reply(proc: subprocess.Popen[bytes], seconds: float = 60) -> dict:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], seconds)
    assert ready, "no reply: the client would hang"
    return json.loads(proc.stdout.readline())


def test_the_server_replies_with_an_error_and_keeps_serving(
    falkordb_url: str, tmp_path: Path, audit_log_path: Path
) -> None:
    ns = f"t-mcp-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "MRAGENT_HOME": str(tmp_path / "home")}
    proc = subprocess.Popen(
        [*ENTRY, "mcp", "--principal", "agent:bot", "--ns", ns, "--db", falkordb_url],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    assert proc.stdin is not None

    def send(line: str) -> None:
        assert proc.stdin is not None
        proc.stdin.write(line.encode() + b"\n")
        proc.stdin.flush()

    try:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {},
                 "clientInfo": {"name": "test", "version": "1"}}  # fmt: skip
        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}))
        assert "result" in _reply(proc)
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        send(LONE)
        refused = _reply(proc)
        assert refused["id"] == 7 and refused["error"]["code"] == -32602
        call = {"name": "recall", "arguments": {"question": "Where is it?"}}
        send(json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": call}))
        assert _reply(proc)["id"] == 9
    finally:
        proc.kill()
        proc.wait()
    assert not audit_log_path.exists() or audit_log_path.read_text() == ""
