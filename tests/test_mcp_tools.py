"""The tool declaration (``mragent.mcp_server.catalog``) is what the server serves, the
command line lists and the sessions enforce: every agent tool is served and calls its
facade method, no human-only tool is served, and an agent is refused each of those."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from mragent import MemorySession, ReviewSession, open_memory, open_review
from mragent.cli.commands import COMMANDS
from mragent.core.errors import WriteRefused
from mragent.core.store.base import GraphStore
from mragent.mcp_server import catalog
from mragent.memory.auth import Standing

pytest.importorskip("mcp", reason="the MCP server tests need the mcp extra")
from mcp.server.mcpserver import MCPServer

from mragent.mcp_server.callers import Callers
from mragent.mcp_server.tools import HANDLERS, register

FACT = "The Kestrel observatory stores its plates in Tromso."

# What each human-only tool is called with in the refusal test: a human-only tool
# added to the catalog without an entry here fails the test.
HUMAN_CALLS: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "review": ((), {}),
    "accept": (("MEMORY",), {}),
    "reject": (("MEMORY",), {}),
    "trust": (("agent:other",), {}),
    "purge": (("MEMORY",), {"reason": "test"}),
}


def _served(server: MCPServer) -> dict[str, Any]:
    async def listed() -> dict[str, Any]:
        return {tool.name: tool for tool in await server.list_tools()}

    return anyio.run(listed)


def test_the_catalog_names_each_tool_once_with_a_facade_method() -> None:
    names = [spec.name for spec in catalog.TOOLS]
    assert len(names) == len(set(names))
    for spec in catalog.agent_tools():
        assert callable(getattr(MemorySession, spec.method)), spec.name
    for spec in catalog.human_tools():
        assert callable(getattr(ReviewSession, spec.method)), spec.name
        assert not hasattr(MemorySession, spec.method), spec.name
    assert set(HANDLERS) == {spec.name for spec in catalog.agent_tools()}
    assert {"accept", "reject", "trust", "purge"} <= {s.name for s in catalog.human_tools()}


def test_the_server_serves_the_agent_tools_and_no_other(store: GraphStore, ns: str) -> None:
    session = open_memory(ns, principal="agent:scout", store=store)
    server = MCPServer("mragent")
    register(server, Callers(session))
    served = _served(server)
    assert list(served) == [spec.name for spec in catalog.agent_tools()]
    assert not set(served) & {spec.name for spec in catalog.human_tools()}
    assert "call" not in served["remember"].input_schema["properties"]

    async def remember_and_recall() -> Any:
        await server.call_tool("remember", {"text": FACT})
        question = "Where does the Kestrel observatory store its plates?"
        return await server.call_tool("recall", {"question": question, "include_pending": True})

    found = anyio.run(remember_and_recall)
    assert found.structured_content["answer"] == "Tromso"


def test_an_agent_is_refused_every_human_only_tool(store: GraphStore, ns: str) -> None:
    agent = open_memory(ns, principal="agent:scout", store=store)
    agent.remember(FACT)
    with pytest.raises(WriteRefused, match="human"):
        open_review(ns, principal="agent:scout", store=store)
    # Even a review session built around an agent by hand refuses it every one.
    forced = ReviewSession(store, ns, Standing("agent:scout"))
    for spec in catalog.human_tools():
        assert not hasattr(agent, spec.method), spec.name
        args, kwargs = HUMAN_CALLS[spec.name]
        with pytest.raises(WriteRefused, match="needs a human principal"):
            getattr(forced, spec.method)(*args, **kwargs)
    # The control: a human is let through (the queue holds the agent's memory).
    human = open_review(ns, principal="human:ana", store=store)
    assert [row["text"] for row in human.pending()] == [FACT]


def test_the_cli_lists_the_catalogs_tools() -> None:
    summary = COMMANDS["mcp"].summary
    for spec in catalog.TOOLS:
        assert spec.name in summary
    assert summary == catalog.summary()
