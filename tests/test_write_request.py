"""One write request: checked once when built, and the one thing the command line, the
MCP tool and the Python facade hand the writer."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from typer.testing import CliRunner

from mragent import open_memory
from mragent.cli import app
from mragent.core.errors import ConfigError
from mragent.core.store import open_store
from mragent.memory.principal import Principal
from mragent.memory.requests import WriteRequest
from mragent.memory.writer import MemoryWriter, WriteResult

FACT = "The Kestrel observatory stores its plates in Tromso."


def test_the_fields_are_checked_and_normalised_when_the_request_is_built() -> None:
    request = WriteRequest(
        FACT + "  ", title="", source="ops wiki", tags=["Tromso", "Tromso", "Kestrel"],
        depends_on=["a", "b"], valid_from=10.0,
    )  # fmt: skip
    assert request.title is None and request.source == "ops wiki"
    assert request.tags == ("Tromso", "Kestrel") and request.depends_on == ("a", "b")
    assert request.content("id-1").text == request.text and request.content("id-1").key == "id-1"
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.text = "other"  # type: ignore[misc]
    for bad, message in (
        ({"text": "   "}, "the memory text is empty"),
        ({"text": FACT, "title": "x" * 10_000}, "--title"),
        ({"text": FACT, "tags": "one tag"}, "--tag must be a list"),
        ({"text": FACT, "valid_to": "soon"}, "valid_to"),
        ({"text": FACT, "scope": "no such/scope"}, "scope"),
    ):
        with pytest.raises(ConfigError, match=message):
            WriteRequest(**bad)


@pytest.fixture
def ns(falkordb_url: str) -> Iterator[str]:
    name = f"t-request-{uuid.uuid4().hex[:10]}"
    yield name
    with open_store(falkordb_url) as opened:
        opened.run("delete_namespace", {"ns": name})


def test_every_surface_hands_the_writer_one_request(
    falkordb_url: str, ns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("mcp", reason="the MCP tool needs the mcp extra")
    from mcp.server.mcpserver import MCPServer

    from mragent.mcp_server.callers import Callers
    from mragent.mcp_server.tools import register

    seen: list[tuple[WriteRequest, Principal]] = []
    write = MemoryWriter.write

    def spy(self: MemoryWriter, request: WriteRequest, *, principal: Principal) -> WriteResult:
        seen.append((request, principal))
        return write(self, request, principal=principal)

    monkeypatch.setattr(MemoryWriter, "write", spy)
    # The Python facade.
    with open_memory(ns, principal="human:ana", db=falkordb_url, scope="notes") as memory:
        memory.remember(FACT + " (facade)", title="Plates", tags=["Kestrel"])
        # The MCP tool, as the caller's session.
        server = MCPServer("mragent")
        register(server, Callers(memory))

        async def remember() -> Any:
            return await server.call_tool("remember", {"text": FACT + " (mcp)", "source": "chat"})

        assert not anyio.run(remember).is_error
    # The command line.
    done = CliRunner().invoke(
        app, ["remember", FACT + " (cli)", "--principal", "human:ana", "--ns", ns,
              "--db", falkordb_url, "--tag", "Kestrel", "--scope", "notes"],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert [type(request) for request, _ in seen] == [WriteRequest] * 3
    assert [request.scope for request, _ in seen] == ["notes"] * 3  # the surface's default
    assert [str(principal) for _, principal in seen] == ["human:ana"] * 3
    facade, mcp, cli = (request for request, _ in seen)
    assert (facade.title, facade.tags) == ("Plates", ("Kestrel",))
    assert (mcp.text, mcp.source) == (FACT + " (mcp)", "chat")
    assert cli.tags == ("Kestrel",)
