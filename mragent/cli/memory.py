"""``remember``, ``recall``, ``correct``, ``forget``, ``purge``, ``history`` and ``migrate``.

The memory commands are the Python facade (:mod:`mragent.facade`) one call at
a time: the same authentication, grants, rules and typed results.

Exit codes: 0 done, 1 database or audit-log error, 2 bad input, 3 refused by
the memory's rules, the authentication or the grants.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from mragent.cli.common import (
    AsOfOption,
    AuditLogOption,
    DbOption,
    EmbedderOption,
    GenomeOption,
    IncludePendingOption,
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
from mragent.core.corpus import validate_namespace
from mragent.core.errors import ConfigError
from mragent.core.store import open_store
from mragent.core.times import parse_time
from mragent.core.view import DEFAULT_SCOPE, validate_scope
from mragent.facade import MemorySession, open_memory, open_review
from mragent.memory.audit import AuditLog
from mragent.memory.records import MemoryRecord, iso
from mragent.memory.requests import WriteRequest

IdArgument = Annotated[str, typer.Argument(help="Id of a memory version.")]
ReasonOption = Annotated[str, typer.Option("--reason", help="Why (kept in the audit log).")]


def audit_log(path: Path | None) -> AuditLog:
    """The audit log at ``path``, or the default one."""
    return AuditLog(path)


@contextmanager
def session(
    principal: str | None,
    ns: str,
    db: str | None,
    audit: Path | None = None,
    *,
    write: bool,
    scope: str = DEFAULT_SCOPE,
    scopes: list[str] | None = None,
    genome: str | None = None,
    embedder: str | None = None,
) -> Iterator[MemorySession]:
    """Authenticate (a write needs a principal), then open ``ns`` through the facade
    (``embedder``: the ``--embedder`` spec, refused unless the namespace is stamped with
    it; None: the namespace's own)."""
    validate_namespace(ns)
    validate_scope(scope)
    claimed = str(writer(principal)) if write else principal
    model = chosen_embedder(embedder)
    with open_memory(
        ns, principal=claimed, db=db, audit_log=audit, scope=scope, read_scopes=scopes,
        genome=genome, embedder=model,
    ) as opened:  # fmt: skip
        check_embedder(opened.store, ns, model, "write" if write else "read")
        yield opened


def _time(value: str | None, option: str) -> float | None:
    return None if value is None else parse_time(value, option)


def remember_command(
    text: Annotated[str, typer.Argument(help="What to remember.")],
    principal: PrincipalOption = None,
    ns: NsOption = "default",
    scope: ScopeOption = DEFAULT_SCOPE,
    title: Annotated[str | None, typer.Option(help="A title (also its primary tag).")] = None,
    source: Annotated[str | None, typer.Option(help="Where it comes from.")] = None,
    cue: Annotated[list[str] | None, typer.Option(help="A given cue; repeatable.")] = None,
    tag: Annotated[list[str] | None, typer.Option(help="A given tag; repeatable.")] = None,
    depends_on: Annotated[
        list[str] | None,
        typer.Option("--depends-on", help="Id of a memory this one rests on; repeatable."),
    ] = None,
    valid_from: Annotated[
        str | None, typer.Option(help="When the fact starts to hold (ISO-8601; default now).")
    ] = None,
    valid_to: Annotated[str | None, typer.Option(help="When it stops holding (ISO-8601).")] = None,
    readmit: Annotated[
        bool, typer.Option(help="Remember text identical to a forgotten memory anyway.")
    ] = False,
    db: DbOption = None,
    audit: AuditLogOption = None,
    as_json: JsonOption = False,
    embedder: EmbedderOption = None,
) -> None:
    """Remember a text. Agents' memories start pending unless the namespace trusts them."""
    with (
        cli_errors(),
        session(principal, ns, db, audit, write=True, scope=scope, embedder=embedder) as memory,
    ):
        request = WriteRequest(
            text, title=title, source=source, cues=cue, tags=tag, depends_on=depends_on or (),
            valid_from=_time(valid_from, "--valid-from"), valid_to=_time(valid_to, "--valid-to"),
            readmit=readmit,
        )  # fmt: skip
        result = memory.write(request)
        if as_json:
            emit_json(result.model_dump())
        elif result.created:
            say(f"{result.id}  ({result.trust})")
        else:
            say(f"{result.id}  (already remembered, {result.trust})")


def correct_command(
    memory_id: IdArgument,
    text: Annotated[str, typer.Argument(help="The corrected text.")],
    principal: PrincipalOption = None,
    ns: NsOption = "default",
    scope: ScopeOption = DEFAULT_SCOPE,
    valid_from: Annotated[str | None, typer.Option(help="New valid-from (ISO-8601).")] = None,
    valid_to: Annotated[str | None, typer.Option(help="New valid-to (ISO-8601).")] = None,
    readmit: Annotated[
        bool, typer.Option(help="Write text identical to a forgotten memory anyway.")
    ] = False,
    db: DbOption = None,
    audit: AuditLogOption = None,
    as_json: JsonOption = False,
    embedder: EmbedderOption = None,
) -> None:
    """Write a new version of a memory; the old one stays readable with --as-of.

    An agent's correction of an accepted memory waits for a human's review."""
    with (
        cli_errors(),
        session(principal, ns, db, audit, write=True, scope=scope, embedder=embedder) as memory,
    ):
        start, end = _time(valid_from, "--valid-from"), _time(valid_to, "--valid-to")
        result = memory.correct(memory_id, text, valid_from=start, valid_to=end, readmit=readmit)
        if as_json:
            emit_json(result.model_dump())
        elif result.awaits_review:
            say(f"{result.id}  (pending; supersedes {memory_id} once a human accepts it)")
        else:
            say(f"{result.id}  ({result.trust}; supersedes {memory_id})")


def _forgetting(erase: bool, summary: str) -> Callable[..., None]:
    """The ``forget`` command, or with ``erase`` the ``purge`` command (``summary``: its help)."""

    def command(
        memory_id: IdArgument,
        reason: ReasonOption = "",
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
            model = chosen_embedder(embedder)
            if erase:
                with open_review(
                    ns, principal=claimed, db=db, audit_log=audit, scope=scope, embedder=model
                ) as h:
                    check_embedder(h.store, ns, model, "write")
                    done = h.purge(memory_id, reason=reason)
            else:
                with session(
                    claimed, ns, db, audit, write=True, scope=scope, embedder=embedder
                ) as memory:
                    done = memory.forget(memory_id, reason=reason)
            if as_json:
                emit_json(done.model_dump())
            else:
                verb = "purged" if erase else "forgot"
                say(f"{verb} {len(done.ids)} version(s): {', '.join(done.ids)}")

    command.__doc__ = summary
    return command


forget_command = _forgetting(
    False,
    "Forget a memory (every version): gone from every retrieval path, a tombstone kept. "
    "An agent forgets only what it wrote, and a human reviews it.",
)
purge_command = _forgetting(
    True, "Forget a memory and erase its text; only the tombstone's hash remains (humans only)."
)


def history_command(
    memory_id: IdArgument,
    principal: ReaderOption = None,
    ns: NsOption = "default",
    scope: ScopeOption = DEFAULT_SCOPE,
    db: DbOption = None,
    as_json: JsonOption = False,
    embedder: EmbedderOption = None,
) -> None:
    """Show every version of a memory, with trust, valid time and record time."""
    with (
        cli_errors(),
        session(principal, ns, db, write=False, scope=scope, embedder=embedder) as memory,
    ):
        versions = memory.history(memory_id)
        if as_json:
            emit_json([v.to_json() for v in versions])
            return
        for version in versions:
            say(_describe(version))


def _describe(record: MemoryRecord) -> str:
    state: str = "forgotten" if record.forgotten else record.trust
    if record.superseded_at is not None:
        state += f", superseded {iso(record.superseded_at)}"
    if record.forgotten_by:
        state += f", forgotten by {record.forgotten_by}"
    lines = [
        f"{record.id}  [{state}]  by {record.principal}, recorded {iso(record.recorded_at)}",
        f"  valid {iso(record.valid_from) or '-'} .. {iso(record.valid_to) or 'open'}",
        f"  {record.text if record.text is not None else '(purged)'}",
    ]
    return "\n".join(lines)


def recall_command(
    question: Annotated[str, typer.Argument(help="The question.")],
    principal: ReaderOption = None,
    ns: NsOption = "default",
    scope: ScopesOption = None,
    include_pending: IncludePendingOption = False,
    as_of: AsOfOption = None,
    genome: GenomeOption = None,
    db: DbOption = None,
    as_json: JsonOption = False,
    embedder: EmbedderOption = None,
) -> None:
    """Answer a question from memory by reconstruction (accepted memories by default)."""
    with cli_errors():
        if not question.strip():
            raise ConfigError("the question is empty")
        when = _time(as_of, "--as-of")
        scopes = scope or [DEFAULT_SCOPE]
        with session(
            principal, ns, db, write=False, scopes=scopes, genome=genome, embedder=embedder
        ) as memory:
            found = memory.recall(question, include_pending=include_pending, as_of=when)
        if as_json:
            emit_json(found.model_dump())
            return
        say(found.answer or "(no answer)")
        for item in found.context:
            say(f"  {item.id}  {item.text}")


def migrate_command(
    principal: PrincipalOption = None,
    ns: NsOption = "default",
    scope: ScopeOption = DEFAULT_SCOPE,
    db: DbOption = None,
    audit: AuditLogOption = None,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Upgrade a namespace written by an earlier mragent (its memories gain provenance)."""
    # Imported here: the migration pulls in the ingest path, which the other memory
    # commands of this module (recall above all) never use.
    from mragent.apps.migrate import migrate_namespace

    with cli_errors():
        who = writer(principal)
        validate_namespace(ns)
        with open_store(db) as store:
            check_embedder(store, ns, chosen_embedder(embedder), "write")
            report = migrate_namespace(
                store, ns, principal=who, audit=audit_log(audit), scope=scope
            )
        if as_json:
            emit_json(asdict(report))
        elif not report.changed:
            say(f"namespace {ns!r} is already in the current store schema")
        else:
            say(
                f"migrated {ns!r}: {report.contents} contents vouched for by {who} in scope "
                f"{scope!r}, {report.tags} tags and {report.cues} cues scoped, "
                f"{report.hashed} texts hashed"
            )
