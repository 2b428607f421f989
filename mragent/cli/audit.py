"""``mragent audit verify`` and ``mragent audit show``: the log outside the database."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

import typer

from mragent.cli.common import AuditLogOption, DbOption, JsonOption, cli_errors, emit_json, say
from mragent.cli.identity import ReaderOption, reader
from mragent.cli.memory import audit_log
from mragent.core.store import open_store
from mragent.memory.audit_check import verify_store
from mragent.memory.audit_records import AuditRecord, read_records
from mragent.memory.principal import Principal

audit_app = typer.Typer(help="Check and read the hash-chained audit log.", no_args_is_help=True)

NamespacesOption = Annotated[
    list[str] | None,
    typer.Option("--ns", help="Check only this namespace's anchor; repeatable (default: all)."),
]


@audit_app.command("verify")
def verify_command(
    ns: NamespacesOption = None,
    db: DbOption = None,
    audit: AuditLogOption = None,
    chain_only: Annotated[
        bool,
        typer.Option(
            "--chain-only", help="Check the chain without the database's anchors (no --db)."
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Recompute every keyed hash and link; compare each namespace's last record with the
    anchor the database keeps, and every stored version with its seal and its audited
    writes. Exit 0 intact, 4 tampered, damaged or behind the log (writes lost)."""
    with cli_errors():
        log = audit_log(audit)
        if chain_only:
            report = log.verify(None)
        else:
            with open_store(db) as store:
                report = verify_store(store, log, ns)
        if as_json:
            emit_json({"log": str(log.path), **report.as_dict()})
        else:
            status = (
                "TAMPERED OR DAMAGED"
                if report.problems
                else "DATABASE BEHIND THE LOG (writes lost)"
                if report.lost
                else "intact"
            )
            checked = f"; {report.memories} stored version(s) checked" if not chain_only else ""
            say(f"{log.path}: {report.records} record(s), {status}{checked}")
            for problem in report.problems:
                say(f"  problem: {problem}")
            for lost in report.lost:
                say(f"  lost: {lost}")
            for warning in report.warnings:
                say(f"  warning: {warning}")
        if not report.ok:
            raise typer.Exit(code=4)


@audit_app.command("show")
def show_command(
    audit: AuditLogOption = None,
    ns: NamespacesOption = None,
    last: Annotated[int, typer.Option(min=1, help="Show the newest N records.")] = 20,
    principal: ReaderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Print the newest audit records (optionally of some namespaces); --json: one list.

    A reader with read grants (an agent) sees the target, hashes and details (reasons)
    only of its own records and those of the scopes it may read."""
    with cli_errors():
        who = reader(principal)
        records = [
            _visible(r, who) for r in read_records(audit_log(audit).path) if not ns or r.ns in ns
        ]
        if as_json:
            emit_json([record.as_dict() for record in records[-last:]])
            return
        for record in records[-last:]:
            say(
                f"{record.seq:>6}  {record.time}  {record.ns}  {record.principal}  "
                f"{record.action} {record.target}"
            )


HIDDEN = "(hidden: outside your read grants)"


def _visible(record: AuditRecord, who: Principal | None) -> AuditRecord:
    """``record`` as ``who`` may see it: whole for a reader of every scope, for the
    record's own principal and for a record of a scope ``who`` reads; otherwise
    without its target, hashes and details (the memory ids and reasons of others)."""
    if who is None or who.read is None or record.principal == str(who):
        return record
    scope = (record.detail or {}).get("scope")
    if isinstance(scope, str) and scope in who.read:
        return record
    return replace(record, target=HIDDEN, before=None, after=None, detail=None)
