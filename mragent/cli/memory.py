"""``remember``, ``recall``, ``correct``, ``forget``, ``purge`` and ``history``.

Exit codes: 0 done, 1 database or audit-log error, 2 bad input, 3 refused by
the memory's rules (forgotten text, superseded version, unknown id).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from mragent.apps.migrate import migrate_namespace
from mragent.cli.common import (
    AsOfOption,
    AuditLogOption,
    DbOption,
    EmbedderOption,
    GenomeOption,
    IncludePendingOption,
    JsonOption,
    NsOption,
    PrincipalOption,
    ScopeOption,
    ScopesOption,
    check_embedder,
    chosen_embedder,
    cli_errors,
    out,
    read_view,
    say,
)
from mragent.core.corpus import validate_namespace
from mragent.core.errors import ConfigError
from mragent.core.genome import load_genome
from mragent.core.store import open_store
from mragent.core.view import DEFAULT_SCOPE, validate_scope
from mragent.memory.audit import AuditLog
from mragent.memory.principal import Principal, parse_principal
from mragent.memory.reader import Memory
from mragent.memory.records import MemoryRecord, iso, parse_time
from mragent.memory.writer import Memories

IdArgument = Annotated[str, typer.Argument(help="Id of a memory version.")]
ReasonOption = Annotated[str, typer.Option("--reason", help="Why (kept in the audit log).")]


def audit_log(path: Path | None) -> AuditLog:
    """The audit log at ``path``, or the default one."""
    return AuditLog(path)


@contextmanager
def writing(
    principal: str | None,
    ns: str,
    db: str | None,
    audit: Path | None,
    embedder: str | None = None,
) -> Iterator[tuple[Memories, Principal]]:
    """Check the principal and namespace, then open the write side of ``ns``
    (``embedder``: the ``--embedder`` spec; None: the namespace's)."""
    who = parse_principal(principal)
    validate_namespace(ns)
    model = chosen_embedder(embedder)
    with open_store(db) as store:
        check_embedder(store, ns, embedder, "write")
        yield Memories(store, ns, audit_log(audit), embedder=model), who


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
    with cli_errors(), writing(principal, ns, db, audit, embedder) as (memories, who):
        result = memories.remember(
            text,
            principal=who,
            scope=validate_scope(scope),
            title=title,
            source=source,
            cues=cue,
            tags=tag,
            depends_on=depends_on or (),
            valid_from=_time(valid_from, "--valid-from"),
            valid_to=_time(valid_to, "--valid-to"),
            readmit=readmit,
        )
        if as_json:
            out.print_json(data=result.__dict__)
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
    """Write a new version of a memory; the old one stays readable with --as-of."""
    with cli_errors(), writing(principal, ns, db, audit, embedder) as (memories, who):
        start, end = _time(valid_from, "--valid-from"), _time(valid_to, "--valid-to")
        result = memories.correct(
            memory_id,
            text,
            principal=who,
            scope=scope,
            valid_from=start,
            valid_to=end,
            readmit=readmit,
        )
        if as_json:
            out.print_json(data=result.__dict__)
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
    ) -> None:
        with cli_errors(), writing(principal, ns, db, audit, embedder) as (memories, who):
            act = memories.purge if erase else memories.forget
            ids = act(memory_id, principal=who, reason=reason, scope=scope)
            say(f"{'purged' if erase else 'forgot'} {len(ids)} version(s): {', '.join(ids)}")

    command.__doc__ = summary
    return command


forget_command = _forgetting(
    False, "Forget a memory (every version): gone from every retrieval path, a tombstone kept."
)
purge_command = _forgetting(
    True, "Forget a memory and erase its text; only the tombstone's hash remains."
)


def history_command(
    memory_id: IdArgument,
    ns: NsOption = "default",
    scope: ScopeOption = DEFAULT_SCOPE,
    db: DbOption = None,
    as_json: JsonOption = False,
    embedder: EmbedderOption = None,
) -> None:
    """Show every version of a memory, with trust, valid time and record time."""
    with cli_errors():
        with open_store(db) as store:
            check_embedder(store, ns, embedder, "read")
            versions = Memories(store, ns, AuditLog()).history(memory_id, scope)
        if as_json:
            out.print_json(data=[v.to_json() for v in versions])
            return
        for version in versions:
            say(_describe(version))


def _describe(record: MemoryRecord) -> str:
    state: str = "forgotten" if record.forgotten else record.trust
    if record.superseded_at is not None:
        state += f", superseded {iso(record.superseded_at)}"
    lines = [
        f"{record.id}  [{state}]  by {record.principal}, recorded {iso(record.recorded_at)}",
        f"  valid {iso(record.valid_from) or '-'} .. {iso(record.valid_to) or 'open'}",
        f"  {record.text if record.text is not None else '(purged)'}",
    ]
    return "\n".join(lines)


def recall_command(
    question: Annotated[str, typer.Argument(help="The question.")],
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
        view = read_view(scope, include_pending, as_of)
        chosen = load_genome(genome)
        model = chosen_embedder(embedder)
        with open_store(db) as store:
            memory = Memory(store, validate_namespace(ns), model, view=view)
            rec = memory.reconstruct(question, chosen)
        items = [
            {
                "id": item.candidate.id,
                "title": item.candidate.title,
                "text": item.candidate.text,
                "score": round(item.score, 4),
            }
            for item in rec.context.items
        ]
        if as_json:
            answer = {"answer": rec.answer.text, "abstained": rec.answer.abstained}
            out.print(json.dumps({**answer, "context": items}, indent=2))
            return
        say(rec.answer.text or "(no answer)")
        for item in items:
            say(f"  {item['id']}  {item['text']}")


def migrate_command(
    principal: PrincipalOption = None,
    ns: NsOption = "default",
    scope: ScopeOption = DEFAULT_SCOPE,
    db: DbOption = None,
    audit: AuditLogOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Upgrade a namespace written by an earlier mragent (its memories gain provenance)."""
    with cli_errors(), writing(principal, ns, db, audit, embedder) as (memories, who):
        report = migrate_namespace(
            memories.store, ns, principal=who, audit=memories.audit, scope=scope
        )
        if not report.changed:
            say(f"namespace {ns!r} is already in the current store schema")
        else:
            say(
                f"migrated {ns!r}: {report.contents} contents vouched for by {who} in scope "
                f"{scope!r}, {report.tags} tags and {report.cues} cues scoped, "
                f"{report.hashed} texts hashed"
            )
