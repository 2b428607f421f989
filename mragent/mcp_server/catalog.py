"""The memory's tools, declared once: name, facade method, who may call it.

The MCP server registers the agents' tools from :data:`TOOLS`
(:mod:`mragent.mcp_server.tools` holds one handler per name), its instructions
and the ``mragent mcp`` summary are written from it, and
``tests/test_mcp_tools.py`` checks it: every agent tool is served, every
human-only one is not, and an agent is refused each human-only one.

Plain data, without the ``mcp`` SDK, so the command line can read it for
``mragent --help`` without the optional extra.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Caller = Literal["agent", "human"]


@dataclass(frozen=True)
class ToolSpec:
    """One tool of the memory.

    Attributes:
        name: The tool's name.
        method: The facade method it calls (of
            :class:`~mragent.facade.session.MemorySession`, or of
            :class:`~mragent.facade.review.ReviewSession` for a human's).
        caller: ``agent``: served over MCP to any authenticated caller; ``human``:
            never served (review, trust and purge stay with humans, at the command
            line or in a human's Python session).
        does: What it does, as the server's instructions tell the agent.
    """

    name: str
    method: str
    caller: Caller
    does: str


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("remember", "write", "agent", "remember stores one fact"),
    ToolSpec(
        "recall",
        "recall",
        "agent",
        "recall answers a question from memory and names the memories it used",
    ),
    ToolSpec("correct", "correct", "agent", "correct writes a new version"),
    ToolSpec("forget", "forget", "agent", "forget removes a memory you wrote"),
    ToolSpec("history", "history", "agent", "history lists a memory's versions"),
    ToolSpec("explain", "explain", "agent", "explain shows how an answer was reconstructed"),
    ToolSpec("review", "pending", "human", "review lists what awaits a human's review"),
    ToolSpec("accept", "accept", "human", "accept accepts a version someone else wrote"),
    ToolSpec("reject", "reject", "human", "reject rejects a version or an agent's forget"),
    ToolSpec("trust", "trust", "human", "trust lets an agent's memories start accepted"),
    ToolSpec("purge", "purge", "human", "purge forgets a memory and erases its text"),
)


def agent_tools() -> tuple[ToolSpec, ...]:
    """The tools the MCP server serves, in declaration order."""
    return tuple(spec for spec in TOOLS if spec.caller == "agent")


def human_tools() -> tuple[ToolSpec, ...]:
    """The tools only a human may call: never on an agent's surface."""
    return tuple(spec for spec in TOOLS if spec.caller == "human")


def summary() -> str:
    """The one-line summary of ``mragent mcp`` (its help and the root listing)."""
    served = ", ".join(spec.name for spec in agent_tools())
    *rest, last = [spec.name for spec in human_tools()]
    return (
        f"Serve the memory's agent tools ({served}) over MCP. No {', '.join(rest)} or "
        f"{last} tool: those stay with humans."
    )


def instructions() -> str:
    """What the server tells an agent about its tools."""
    return (
        "Long-term memory. "
        + "; ".join(spec.does for spec in agent_tools())
        + ". What you write may wait for a human's review before recall reads it by "
        "default (include_pending reads it sooner)."
    )
