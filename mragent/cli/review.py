"""``mragent review`` (list, accept, reject) and ``mragent trust`` (grant, revoke).

Humans only. Review needs a human principal other than the memory's writer. It
decides pending memories (rejecting one returns every memory that depends on it
to pending), pending corrections of accepted memories (accepting one supersedes
the old version), and agents' forgets (accepting confirms, rejecting restores).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from mragent.cli.common import (
    AuditLogOption,
    DbOption,
    EmbedderOption,
    JsonOption,
    NsOption,
    ScopeOption,
    ScopesOption,
    check_embedder,
    chosen_embedder,
    cli_errors,
    emit_json,
    say,
)
from mragent.cli.identity import PrincipalOption, ReaderOption, writer
from mragent.cli.memory import IdArgument
from mragent.core.view import DEFAULT_SCOPE
from mragent.facade import ReviewSession, open_review
from mragent.memory.principal import parse_principal
from mragent.memory.records import iso


@contextmanager
def _open(ns: str, embedder: str | None, action: str, **options: Any) -> Iterator[ReviewSession]:
    """A human's review session, refused when ``--embedder`` names another embedder than
    the namespace's."""
    model = chosen_embedder(embedder)
    with open_review(ns, embedder=model, **options) as human:
        check_embedder(human.store, ns, model, action)
        yield human


review_app = typer.Typer(
    help="Review what agents wrote, corrected and forgot.", no_args_is_help=True
)
trust_app = typer.Typer(
    help="Choose the agents whose memories start accepted.", no_args_is_help=True
)


@review_app.command("list")
def review_list(
    principal: ReaderOption = None,
    ns: NsOption = "default",
    scope: ScopesOption = None,
    limit: Annotated[int, typer.Option(min=1, max=10_000, help="At most this many.")] = 100,
    db: DbOption = None,
    as_json: JsonOption = False,
    embedder: EmbedderOption = None,
) -> None:
    """List pending memories and corrections, then agents' forgets, oldest first."""
    with cli_errors():
        scopes = scope or [DEFAULT_SCOPE]
        with _open(ns, embedder, "read", principal=principal, db=db, read_scopes=scopes) as human:
            pending = human.pending(limit=limit)
            forgets = human.agent_forgets(limit=limit)
        if as_json:
            emit_json({"pending": pending, "forgotten": forgets})
            return
        if not pending and not forgets:
            say("nothing to review")
        for row in pending:
            corrects = f", corrects {', '.join(row['corrects'])}" if row["corrects"] else ""
            say(
                f"{row['id']}  {row['scope']}  by {row['principal']} at "
                f"{iso(row['recorded_at'])}{corrects}\n  {row['text']}"
            )
        for row in forgets:
            say(
                f"{row['id']}  {row['scope']}  forgotten by {row['forgotten_by']} at "
                f"{iso(row['forgotten_at'])} ({row['forget_reason']})\n  {row['text']}"
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
        as_json: JsonOption = False,
    ) -> None:
        with cli_errors():
            claimed = str(writer(principal))
            with _open(
                ns, embedder, "write", principal=claimed, db=db, audit_log=audit, scope=scope
            ) as h:
                forget = h.get(memory_id).forget_awaits_review
                demoted: list[str] = []
                if verdict == "accept":
                    h.accept(memory_id)
                else:
                    demoted = h.reject(memory_id)
            if as_json:
                emit_json(
                    {"id": memory_id, "verdict": verdict, "forget": forget, "demoted": demoted}
                )
                return
            what = "the agent's forget of " if forget else ""
            say(f"{verdict}ed {what}{memory_id}")
            if forget and verdict == "reject":
                say("  the memory is restored")
            for dependent in demoted:
                say(f"  back to pending: {dependent}")

    command.__doc__ = summary
    return command


review_accept = review_app.command("accept")(
    _reviewing("accept", "Accept a memory or correction someone else wrote, or an agent's forget.")
)
review_reject = review_app.command("reject")(
    _reviewing(
        "reject",
        "Reject a memory (whatever depends on it returns to pending) or correction, or undo "
        "an agent's forget.",
    )
)


def _set_trust(
    agent: str,
    principal: str | None,
    ns: str,
    db: str | None,
    audit: Path | None,
    trusted: bool,
    as_json: bool,
    embedder: str | None,
) -> None:
    with cli_errors():
        target = parse_principal(agent, "AGENT")
        claimed = str(writer(principal))
        with _open(ns, embedder, "write", principal=claimed, db=db, audit_log=audit) as human:
            now = human.trust(target, trusted=trusted)
        if as_json:
            emit_json({"trusted": now})
        else:
            say("trusted agents: " + (", ".join(now) or "(none)"))


AgentArgument = Annotated[str, typer.Argument(help="The agent, as agent:NAME.")]


@trust_app.command("grant")
def trust_grant(
    agent: AgentArgument,
    principal: PrincipalOption = None,
    ns: NsOption = "default",
    db: DbOption = None,
    audit: AuditLogOption = None,
    as_json: JsonOption = False,
    embedder: EmbedderOption = None,
) -> None:
    """Let an agent's new memories start accepted (a human decides)."""
    _set_trust(agent, principal, ns, db, audit, True, as_json, embedder)


@trust_app.command("revoke")
def trust_revoke(
    agent: AgentArgument,
    principal: PrincipalOption = None,
    ns: NsOption = "default",
    db: DbOption = None,
    audit: AuditLogOption = None,
    as_json: JsonOption = False,
    embedder: EmbedderOption = None,
) -> None:
    """Make an agent's new memories start pending again."""
    _set_trust(agent, principal, ns, db, audit, False, as_json, embedder)
