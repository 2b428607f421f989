"""Coding-agent hooks: recall before a prompt, remember only what the person marked.

A coding agent (Claude Code and its peers) runs a command on each prompt and
hands it the event as JSON on stdin (``{"hook_event_name": "UserPromptSubmit",
"prompt": ..., "session_id": ..., "cwd": ...}``); what the command prints is
added to the agent's context.

* :func:`recall_context` reconstructs from the prompt and renders the memories
  handed to synthesis, each with its id, trust state, writer and source, within
  a token budget.
* :func:`remember_marked` stores the lines the person began with the marker
  (``remember:`` by default) and nothing else: a prompt without a marked line
  writes nothing, so the memory never fills with prompts nobody asked it to keep.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from mragent.core.errors import ConfigError, WriteRefused
from mragent.core.text import count_tokens
from mragent.facade.results import ContextItem
from mragent.facade.session import MemorySession

DEFAULT_PREFIX = "remember:"
DEFAULT_MAX_TOKENS = 400
HOOK_SOURCE = "hook"
HEADER = "Recalled from memory (mragent; id, trust, writer, source):"


@dataclass(frozen=True)
class HookEvent:
    """The parts of a hook event the hooks read.

    Attributes:
        prompt: What the person submitted.
        name: The event's name (``hook_event_name``), when given.
        session_id: The agent's session, when given.
    """

    prompt: str
    name: str | None = None
    session_id: str | None = None


def parse_event(raw: str) -> HookEvent:
    """Read a hook event (a JSON object with a string ``prompt``).

    Raises:
        ConfigError: when the input is not such an object.
    """
    try:
        event = json.loads(raw)
    except ValueError as exc:
        raise ConfigError(f"the hook event is not JSON: {exc}") from None
    if not isinstance(event, dict) or not isinstance(event.get("prompt"), str):
        raise ConfigError("the hook event is not a JSON object with a string 'prompt'")
    name, session = event.get("hook_event_name"), event.get("session_id")
    return HookEvent(
        prompt=event["prompt"],
        name=name if isinstance(name, str) else None,
        session_id=session if isinstance(session, str) else None,
    )


def marked_texts(prompt: str, prefix: str = DEFAULT_PREFIX) -> list[str]:
    """The texts the person marked: each line that starts (after indentation) with
    ``prefix``, compared without case, with the prefix removed. Empty ones are dropped.

    Raises:
        ConfigError: for an empty prefix (it would mark every line).
    """
    if not prefix.strip():
        raise ConfigError("the remember prefix is empty: it would mark every line")
    marker = prefix.strip().casefold()
    found = []
    for line in prompt.splitlines():
        text = line.strip()
        if text.casefold().startswith(marker):
            kept = text[len(marker) :].strip()
            if kept:
                found.append(kept)
    return found


def recall_context(
    session: MemorySession,
    prompt: str,
    *,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    include_pending: bool = False,
) -> str:
    """The memories a reconstruction from ``prompt`` keeps, as context for the agent.

    Args:
        session: The session to read through (its read view and grants).
        prompt: The person's prompt.
        max_tokens: Budget for the whole text (:func:`~mragent.core.text.count_tokens`);
            memories are added best first while they fit, the first cut to fit if needed.
        include_pending: Read pending memories too (shown as ``pending``).

    Returns:
        A header and one line per memory, or an empty string when nothing is recalled.
    """
    if max_tokens < 1:
        raise ConfigError(f"max_tokens must be at least 1, got {max_tokens}")
    if not prompt.strip():
        return ""
    found = session.recall(prompt, include_pending=include_pending)
    lines = [HEADER]
    used = count_tokens(HEADER)
    for item in found.context:
        line = _line(item)
        cost = count_tokens(line)
        if used + cost > max_tokens:
            if len(lines) == 1:  # the best memory is cut, not dropped
                room = max_tokens - used
                if room > 0:
                    lines.append(" ".join(line.split()[:room]) + " …")
            break
        lines.append(line)
        used += cost
    return "\n".join(lines) if len(lines) > 1 else ""


def remember_marked(
    session: MemorySession, prompt: str, *, prefix: str = DEFAULT_PREFIX
) -> list[str]:
    """Remember each marked text of ``prompt``; one report line per text.

    A text refused by the memory's rules (identical to a forgotten memory) is
    reported, not raised, so one refusal does not lose the other marked texts.
    """
    report = []
    for text in marked_texts(prompt, prefix):
        try:
            written = session.remember(text, source=HOOK_SOURCE)
        except WriteRefused as exc:
            report.append(f"mragent did not remember {text!r}: {exc}")
            continue
        state = written.trust if written.created else f"already remembered, {written.trust}"
        report.append(f"mragent remembered {written.id} ({state}): {text}")
    return report


def _line(item: ContextItem) -> str:
    # A memory written without a source records its writer as the source: shown once.
    source = f" {item.source}" if item.source and item.source != item.principal else ""
    text = " ".join(item.text.split())
    return f"- [{item.id} {item.trust} {item.principal}{source}] {text}"
