"""The agent's tools: remember, recall, correct, forget, history and explain.

Each tool is the caller's facade session doing one thing, so it inherits the
session's authentication, grants and the memory layer's rules. There is no
review, trust or purge tool: those are for humans, at the command line or in
a human's Python session.

The tools are plain functions (the SDK runs them on worker threads; a session
serialises its own calls). An error the memory reports reaches the agent as a
tool error with the memory's one-line message; nothing is half written.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from mragent.core.errors import (
    AccessDenied,
    ConfigError,
    CorpusError,
    EmbeddingMismatch,
    MragentError,
    WriteRefused,
)
from mragent.core.times import parse_time
from mragent.facade import Forgotten, Recall, Written
from mragent.mcp_server.callers import Callers
from mragent.memory.records import MemoryRecord

TOOLS = ("remember", "recall", "correct", "forget", "history", "explain")

Scope = Annotated[
    str | None, Field(description="The scope (default: the session's, usually 'shared').")
]
Scopes = Annotated[
    list[str] | None, Field(description="Scopes to read (default: the session's read scopes).")
]
Pending = Annotated[
    bool, Field(description="Read pending (unreviewed) memories too, at half evidence.")
]
AsOf = Annotated[
    str | None,
    Field(description="Read what was believed at this record time (ISO-8601 or epoch seconds)."),
]
MemoryId = Annotated[str, Field(description="Id of a memory version.")]


class History(BaseModel):
    """Every version of one memory, oldest first."""

    versions: list[MemoryRecord]


@contextmanager
def _as_tool_errors() -> Iterator[None]:
    """Turn the memory's refusals into tool errors the agent can read."""
    try:
        yield
    except (WriteRefused, AccessDenied) as exc:
        raise ToolError(f"refused: {exc}") from None
    except (ConfigError, CorpusError, EmbeddingMismatch) as exc:
        raise ToolError(f"invalid: {exc}") from None
    except MragentError as exc:
        raise ToolError(f"error: {exc}") from None


def _when(as_of: str | None) -> float | None:
    return None if as_of is None else parse_time(as_of, "as_of")


def register(server: MCPServer, callers: Callers) -> None:
    """Add the agent's tools to ``server``, each acting as the current caller."""

    @server.tool()
    def remember(
        text: Annotated[str, Field(description="What to remember (one fact).")],
        scope: Scope = None,
        title: Annotated[str | None, Field(description="A title (its primary tag).")] = None,
        source: Annotated[str | None, Field(description="Where it comes from.")] = None,
        depends_on: Annotated[
            list[str] | None, Field(description="Ids of memories this one rests on.")
        ] = None,
    ) -> Written:
        """Remember a fact. An agent's memory starts pending until a human accepts it,
        unless a human trusts the agent."""
        with _as_tool_errors():
            return callers.current().remember(
                text, scope=scope, title=title, source=source, depends_on=depends_on or ()
            )

    @server.tool()
    def recall(
        question: Annotated[str, Field(description="The question.")],
        scopes: Scopes = None,
        include_pending: Pending = False,
        as_of: AsOf = None,
    ) -> Recall:
        """Answer a question from memory: the answer and the memories it came from, with
        their ids, scores, trust state and provenance."""
        with _as_tool_errors():
            return callers.current().recall(
                question, scopes=scopes, include_pending=include_pending, as_of=_when(as_of)
            )

    @server.tool()
    def correct(
        memory_id: MemoryId,
        text: Annotated[str, Field(description="The corrected text.")],
        scope: Scope = None,
    ) -> Written:
        """Write a new version of a memory. A correction of an accepted memory waits for
        a human: until then the accepted version stays current (awaits_review)."""
        with _as_tool_errors():
            return callers.current().correct(memory_id, text, scope=scope)

    @server.tool()
    def forget(
        memory_id: MemoryId,
        reason: Annotated[str, Field(description="Why it is forgotten (kept in the audit log).")],
        scope: Scope = None,
    ) -> Forgotten:
        """Forget a memory you wrote (every version); a human reviews the forget."""
        with _as_tool_errors():
            return callers.current().forget(memory_id, reason=reason, scope=scope)

    @server.tool()
    def history(memory_id: MemoryId, scope: Scope = None) -> History:
        """Every version of a memory, with its trust state, valid time and record time."""
        with _as_tool_errors():
            return History(versions=callers.current().history(memory_id, scope=scope))

    @server.tool()
    def explain(
        question: Annotated[str, Field(description="The question to reconstruct.")],
        scopes: Scopes = None,
        include_pending: Pending = False,
        as_of: AsOf = None,
    ) -> dict[str, Any]:
        """How a question is answered, as JSON: entry cues and their scores, every path
        with its evidence and fate, the contents in final order, the answer, timings."""
        with _as_tool_errors():
            return callers.current().explain(
                question, scopes=scopes, include_pending=include_pending, as_of=_when(as_of)
            )
