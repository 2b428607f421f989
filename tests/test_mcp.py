"""The MCP server end to end: the real ``mragent mcp`` process, the SDK's real client,
over stdio and streamable HTTP, on the embedded FalkorDB and on Neo4j.

remember -> recall finds it; forget -> absent; a wrong token is refused (401)
and writes nothing; no review, trust or purge tool is reachable.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from mragent.core.store import open_store
from mragent.memory.credentials import editing
from mragent.memory.principal import Principal
from tests.conftest import unavailable

mcp = pytest.importorskip("mcp", reason="the MCP server tests need the mcp extra")
httpx2 = pytest.importorskip("httpx2")
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

FACT = "The Kestrel observatory stores its plates in Tromso."
QUESTION = "Where does the Kestrel observatory store its plates?"
HUMAN_ONLY = {"review", "accept", "reject", "trust", "purge", "grant", "revoke"}
ENTRY = ["-c", "from mragent.cli import main; main()"]


@pytest.fixture(params=["falkordb", "neo4j"])
def db_url(request: pytest.FixtureRequest, engine_urls: dict[str, str | None]) -> str:
    url = engine_urls[request.param]
    if url is None:
        unavailable(request.param, "not reachable for the MCP tests")
    assert url is not None
    return url


@pytest.fixture
def ns(db_url: str) -> Iterator[str]:
    name = f"t-mcp-{uuid.uuid4().hex[:10]}"
    yield name
    with open_store(db_url) as store:
        store.run("delete_namespace", {"ns": name})


@pytest.fixture
def token(agent_token: str) -> str:
    """agent:scout's token (the OS user is human:ana)."""
    return agent_token


def _env(**extra: str) -> dict[str, str]:
    """What the server process needs: the test's credentials, audit log and database auth."""
    keep = ("PYTHONPATH", "MRAGENT_CREDENTIALS", "MRAGENT_AUDIT_LOG", "MRAGENT_DB_PASSWORD",
            "MRAGENT_DB_USER", "HOME", "PATH")  # fmt: skip
    return {**{k: os.environ[k] for k in keep if k in os.environ}, **extra}


def _payload(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    return result.structured_content


async def _round_trip(client: Client) -> dict[str, Any]:
    """remember, recall (pending included: an agent's memory waits for review), forget,
    recall again; what each step saw."""
    tools = {tool.name for tool in (await client.list_tools()).tools}
    written = _payload(await client.call_tool("remember", {"text": FACT}))
    found = _payload(
        await client.call_tool("recall", {"question": QUESTION, "include_pending": True})
    )
    unreviewed = _payload(await client.call_tool("recall", {"question": QUESTION}))
    history = _payload(await client.call_tool("history", {"memory_id": written["id"]}))
    forgotten = _payload(
        await client.call_tool("forget", {"memory_id": written["id"], "reason": "test"})
    )
    after = _payload(
        await client.call_tool("recall", {"question": QUESTION, "include_pending": True})
    )
    review = await client.call_tool("accept", {"memory_id": written["id"]})
    return {
        "tools": tools, "written": written, "found": found, "unreviewed": unreviewed,
        "history": history, "forgotten": forgotten, "after": after, "review": review,
    }  # fmt: skip


def _check_round_trip(seen: dict[str, Any]) -> None:
    assert seen["tools"] == {"remember", "recall", "correct", "forget", "history", "explain"}
    assert not seen["tools"] & HUMAN_ONLY
    assert seen["written"]["trust"] == "pending"
    assert seen["found"]["answer"] == "Tromso"
    assert seen["written"]["id"] in [item["id"] for item in seen["found"]["context"]]
    item = seen["found"]["context"][0]
    assert (item["principal"], item["trust"]) == ("agent:scout", "pending")
    assert seen["unreviewed"]["context"] == []  # pending is not read by default
    assert [v["principal"] for v in seen["history"]["versions"]] == ["agent:scout"]
    assert seen["forgotten"]["ids"] == [seen["written"]["id"]]
    assert seen["after"]["context"] == [] and seen["after"]["answer"] is None
    assert seen["review"].is_error  # no such tool on the agent's surface


def test_stdio_round_trip(db_url: str, ns: str, token: str, audit_log_path: Path) -> None:
    server = StdioServerParameters(
        command=sys.executable,
        args=[*ENTRY, "mcp", "--ns", ns, "--db", db_url],
        env=_env(MRAGENT_TOKEN=token),
    )

    async def run() -> dict[str, Any]:
        async with Client(server) as client:
            return await _round_trip(client)

    _check_round_trip(asyncio.run(run()))
    actions = [json.loads(line)["action"] for line in audit_log_path.read_text().splitlines()]
    assert actions == ["remember", "forget"]


def test_stdio_server_refuses_a_principal_revoked_while_it_runs(
    db_url: str, ns: str, token: str, credentials_path: Path, audit_log_path: Path
) -> None:
    """``principal revoke`` reaches a running stdio server: the agent's next write is
    a tool error and nothing is written or audited as it."""
    server = StdioServerParameters(
        command=sys.executable,
        args=[*ENTRY, "mcp", "--ns", ns, "--db", db_url],
        env=_env(MRAGENT_TOKEN=token),
    )

    async def run() -> tuple[Any, Any]:
        async with Client(server) as client:
            before = await client.call_tool("remember", {"text": FACT})
            with editing(credentials_path) as creds:
                creds.revoke(Principal("agent", "scout"))
            after = await client.call_tool("remember", {"text": "The plates moved to Bergen."})
            return before, after

    before, after = asyncio.run(run())
    assert not before.is_error
    assert after.is_error and "revoked" in after.content[0].text, after.content
    actions = [json.loads(line)["action"] for line in audit_log_path.read_text().splitlines()]
    assert actions == ["remember"]


def test_stdio_refuses_a_human_a_wrong_token_and_a_false_claim(
    ns: str, db_url: str, token: str
) -> None:
    refusals = (
        ({}, "serves agents"),  # the OS user's human, on the agent's pipe
        ({"MRAGENT_TOKEN": "mrg_x"}, "no principal"),
        ({"MRAGENT_TOKEN": token, "MRAGENT_PRINCIPAL": "human:ana"}, "not the authenticated"),
    )
    for extra, needle in refusals:
        done = subprocess.run(
            [sys.executable, *ENTRY, "mcp", "--ns", ns, "--db", db_url],
            env=_env(**extra), input="", capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 3 and needle in done.stderr, done.stderr


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def http_server(db_url: str, ns: str, token: str, tmp_path: Path) -> Iterator[str]:
    """``mragent mcp --transport http`` on a free loopback port; yields its URL."""
    port = _free_port()
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, *ENTRY, "mcp", "--transport", "http", "--port", str(port),
         "--ns", ns, "--db", db_url],
        env=_env(), stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                assert proc.poll() is None, (tmp_path / "server.log").read_text()
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()


@asynccontextmanager
async def _connected(url: str, bearer: str) -> AsyncIterator[Client]:
    """The SDK's client over streamable HTTP, every request carrying ``bearer``."""
    headers = {"Authorization": f"Bearer {bearer}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


def test_http_round_trip(http_server: str, token: str, audit_log_path: Path) -> None:
    async def run() -> dict[str, Any]:
        async with _connected(http_server, token) as client:
            return await _round_trip(client)

    _check_round_trip(asyncio.run(run()))
    actions = [json.loads(line)["action"] for line in audit_log_path.read_text().splitlines()]
    assert actions == ["remember", "forget"]


def test_http_refuses_a_wrong_token_before_any_work(
    http_server: str, token: str, db_url: str, ns: str, audit_log_path: Path, credentials_path: Path
) -> None:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "remember", "arguments": {"text": FACT}}}  # fmt: skip
    accept = {"Accept": "application/json, text/event-stream"}

    async def raw(bearer: str | None) -> int:
        headers = {**accept, **({"Authorization": f"Bearer {bearer}"} if bearer else {})}
        async with httpx2.AsyncClient(timeout=30) as http:
            return (await http.post(http_server, json=call, headers=headers)).status_code

    async def remember_with(bearer: str) -> None:
        async with _connected(http_server, bearer) as client:
            await client.call_tool("remember", {"text": FACT})

    assert asyncio.run(raw(None)) == 401
    assert asyncio.run(raw("mrg_wrong")) == 401
    assert asyncio.run(raw(token[:-1])) == 401
    with pytest.raises(BaseException):  # noqa: B017 (the SDK wraps the 401 in a group)
        asyncio.run(remember_with("mrg_wrong"))
    assert not audit_log_path.exists() or audit_log_path.read_text() == ""
    with open_store(db_url) as store:
        assert store.run("get_space", {"ns": ns}) == []  # not even the namespace exists

    asyncio.run(remember_with(token))  # the control: the right token writes
    assert len(audit_log_path.read_text().splitlines()) == 1
    with editing(credentials_path) as creds:
        creds.revoke(Principal("agent", "scout"))
    assert asyncio.run(raw(token)) == 401  # revoked while the server runs
    assert len(audit_log_path.read_text().splitlines()) == 1
