"""The agent's tools: remember, recall, correct, forget, history and explain.

Each tool is the caller's facade session doing one thing, so it inherits the
session's authentication, grants and the memory layer's rules. Which tools
exist, which facade method each calls and who may call it is declared in
:mod:`mragent.mcp_server.catalog`; only the agent tools are registered: review,
trust and purge are for humans, at the command line or in a human's Python
session.

The tools are plain functions (the SDK runs them on worker threads; a session
serialises its own calls). An error the memory reports reaches the agent as a
tool error with the memory's one-line message; nothing is half written.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
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
from mragent.mcp_server.catalog import ToolSpec, agent_tools
from mragent.memory.records import MemoryRecord
from mragent.memory.requests import WriteRequest

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


def remember(
    call: Callable[..., Written],
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
    return call(
        WriteRequest(text, scope=scope, title=title, source=source, depends_on=depends_on or ())
    )


def recall(
    call: Callable[..., Recall],
    question: Annotated[str, Field(description="The question.")],
    scopes: Scopes = None,
    include_pending: Pending = False,
    as_of: AsOf = None,
) -> Recall:
    """Answer a question from memory: the answer and the memories it came from, with
    their ids, scores, trust state and provenance."""
    return call(question, scopes=scopes, include_pending=include_pending, as_of=_when(as_of))


def correct(
    call: Callable[..., Written],
    memory_id: MemoryId,
    text: Annotated[str, Field(description="The corrected text.")],
    scope: Scope = None,
) -> Written:
    """Write a new version of a memory. A correction of an accepted memory waits for
    a human: until then the accepted version stays current (awaits_review)."""
    return call(memory_id, text, scope=scope)


def forget(
    call: Callable[..., Forgotten],
    memory_id: MemoryId,
    reason: Annotated[str, Field(description="Why it is forgotten (kept in the audit log).")],
    scope: Scope = None,
) -> Forgotten:
    """Forget a memory you wrote (every version); a human reviews the forget."""
    return call(memory_id, reason=reason, scope=scope)


def history(
    call: Callable[..., list[MemoryRecord]], memory_id: MemoryId, scope: Scope = None
) -> History:
    """Every version of a memory, with its trust state, valid time and record time."""
    return History(versions=call(memory_id, scope=scope))


def explain(
    call: Callable[..., dict[str, Any]],
    question: Annotated[str, Field(description="The question to reconstruct.")],
    scopes: Scopes = None,
    include_pending: Pending = False,
    as_of: AsOf = None,
) -> dict[str, Any]:
    """How a question is answered, as JSON: entry cues and their scores, every path
    with its evidence and fate, the contents in final order, the answer, timings."""
    return call(question, scopes=scopes, include_pending=include_pending, as_of=_when(as_of))


# The agent's tools by name: each takes the caller's facade method first, then the
# arguments the agent sends (the schema the SDK publishes is the rest of its signature).
HANDLERS: dict[str, Callable[..., Any]] = {
    "remember": remember,
    "recall": recall,
    "correct": correct,
    "forget": forget,
    "history": history,
    "explain": explain,
}


def register(server: MCPServer, callers: Callers) -> None:
    """Add the agent's tools (:func:`~mragent.mcp_server.catalog.agent_tools`) to
    ``server``, each acting as the current caller through its facade method."""
    for spec in agent_tools():
        server.add_tool(_bound(spec, HANDLERS[spec.name], callers), name=spec.name)


def _bound(spec: ToolSpec, handler: Callable[..., Any], callers: Callers) -> Callable[..., Any]:
    """``handler`` as the SDK sees a tool: its signature without the method, called
    with the current caller's ``spec.method``."""

    @functools.wraps(handler)
    def tool(**arguments: Any) -> Any:
        with _as_tool_errors():
            return handler(getattr(callers.current(), spec.method), **arguments)

    signature = inspect.signature(handler, eval_str=True)
    tool.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=list(signature.parameters.values())[1:]
    )
    return tool
