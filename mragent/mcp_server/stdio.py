"""The stdio transport, with one repair: a request whose text is not Unicode gets
an error reply instead of none.

JSON may escape a lone surrogate (``"\\ud800"``); the SDK's parser refuses such a
line and, having no request id, answers nothing, so the client waits forever.
Here each line is read first: one holding a lone surrogate is passed on as the
same request (same id and method) with parameters the SDK rejects, so the client
gets a JSON-RPC "invalid params" error for that request and nothing of its text
reaches a tool.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import AsyncIterator
from io import TextIOWrapper
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# Parameters no request takes: the SDK answers them with -32602 "Invalid params".
_REFUSED = {"name": None, "arguments": None, "_invalid": "a string holds a lone surrogate"}


def _not_unicode(value: Any) -> bool:
    """Whether a decoded JSON value holds a string that is not Unicode text."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_not_unicode(k) or _not_unicode(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_not_unicode(item) for item in value)
    return False


def screen_line(line: str) -> str:
    """``line`` as it is, or, when it is a request holding a lone surrogate, the same
    request with parameters that draw an error reply."""
    if not _SURROGATE_ESCAPE.search(line):
        return line
    try:
        message = json.loads(line)
    except ValueError:
        return line  # not JSON: the SDK reports it as it does any malformed line
    if not isinstance(message, dict) or "id" not in message or not _not_unicode(message):
        return line
    method = message.get("method")
    refused = {
        "jsonrpc": "2.0",
        "id": message["id"] if not _not_unicode(message["id"]) else None,
        "method": method if isinstance(method, str) and not _not_unicode(method) else "invalid",
        "params": _REFUSED,
    }
    return json.dumps(refused) + "\n"


class _Screened:
    """Async lines of the process's stdin, each through :func:`screen_line`."""

    def __init__(self) -> None:
        wire = TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
        self._lines = anyio.wrap_file(wire)

    async def __aiter__(self) -> AsyncIterator[str]:
        async for line in self._lines:
            yield screen_line(line)


async def run_stdio(server: MCPServer) -> None:
    """Serve ``server`` over stdin and stdout, as ``server.run()`` does, screened."""
    # The SDK has no public way to hand its stdio loop another stdin; the low-level
    # server is what its own run_stdio_async runs.
    lowlevel = server._lowlevel_server
    async with stdio_server(stdin=_Screened()) as (read_stream, write_stream):  # type: ignore[arg-type]
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
