"""``mragent review`` (list, accept, reject) and ``mragent trust`` (grant, revoke).

Review needs a human principal other than the memory's writer; rejecting a
memory returns every memory that depends on it to pending.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Literal

import typer

from mragent.cli.common import (
    AuditLogOption,
    DbOption,
    EmbedderOption,
    JsonOption,
    NsOption,
    PrincipalOption,
    ScopeOption,
    ScopesOption,
    check_embedder,
    cli_errors,
    out,
    say,
)
from mragent.cli.memory import IdArgument, audit_log, writing
from mragent.core.store import open_store
from mragent.core.view import DEFAULT_SCOPE
from mragent.memory.principal import parse_principal
from mragent.memory.records import iso
from mragent.memory.writer import Memories

review_app = typer.Typer(help="Review agent-written memories.", no_args_is_help=True)
trust_app = typer.Typer(
    help="Choose the agents whose memories start accepted.", no_args_is_help=True
)


@review_app.command("list")
def review_list(
    ns: NsOption = "default",
    scope: ScopesOption = None,
    limit: Annotated[int, typer.Option(min=1, max=10_000, help="At most this many.")] = 100,
    db: DbOption = None,
    as_json: JsonOption = False,
    embedder: EmbedderOption = None,
) -> None:
    """List pending memories, oldest first."""
    with cli_errors():
        with open_store(db) as store:
            check_embedder(store, ns, embedder, "read")
            rows = Memories(store, ns, audit_log(None)).pending(scope or (DEFAULT_SCOPE,), limit)
        if as_json:
            out.print_json(data=rows)
            return
        if not rows:
            say("nothing to review")
        for row in rows:
            say(
                f"{row['id']}  {row['scope']}  by {row['principal']} at "
                f"{iso(row['recorded_at'])}\n  {row['text']}"
            )


def _reviewing(verdict: Literal["accept", "reject"], summary: str) -> Callable[..., None]:
    """The ``review accept`` or ``review reject`` command (``summary``: its help)."""

    def command(
        memory_id: IdArgument,
        principal: PrincipalOption = None,
        ns: NsOption = "default",
        scope: ScopeOption = DEFAULT_SCOPE,
        db: DbOption = None,
        audit: AuditLogOption = None,
        embedder: EmbedderOption = None,
    ) -> None:
        with cli_errors(), writing(principal, ns, db, audit, embedder) as (memories, who):
            demoted: list[str] = []
            if verdict == "accept":
                memories.accept(memory_id, principal=who, scope=scope)
            else:
                demoted = memories.reject(memory_id, principal=who, scope=scope)
            say(f"{verdict}ed {memory_id}")
            for dependent in demoted:
                say(f"  back to pending: {dependent}")

    command.__doc__ = summary
    return command


review_accept = review_app.command("accept")(
    _reviewing("accept", "Accept a memory someone else wrote.")
)
review_reject = review_app.command("reject")(
    _reviewing("reject", "Reject a memory; whatever depends on it returns to pending.")
)


def _set_trust(
    agent: str,
    principal: str | None,
    ns: str,
    db: str | None,
    audit: Path | None,
    embedder: str | None,
    trusted: bool,
) -> None:
    with cli_errors(), writing(principal, ns, db, audit, embedder) as (memories, who):
        target = parse_principal(agent, "AGENT")
        now = memories.set_trust(target, principal=who, trusted=trusted)
        say("trusted agents: " + (", ".join(now) or "(none)"))


AgentArgument = Annotated[str, typer.Argument(help="The agent, as agent:NAME.")]


@trust_app.command("grant")
def trust_grant(
    agent: AgentArgument,
    principal: PrincipalOption = None,
    ns: NsOption = "default",
    db: DbOption = None,
    audit: AuditLogOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Let an agent's new memories start accepted (a human decides)."""
    _set_trust(agent, principal, ns, db, audit, embedder, trusted=True)


@trust_app.command("revoke")
def trust_revoke(
    agent: AgentArgument,
    principal: PrincipalOption = None,
    ns: NsOption = "default",
    db: DbOption = None,
    audit: AuditLogOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Make an agent's new memories start pending again."""
    _set_trust(agent, principal, ns, db, audit, embedder, trusted=False)
