"""``mragent audit verify`` and ``mragent audit show``: the log outside the database."""

from __future__ import annotations

from typing import Annotated

import typer

from mragent.cli.common import AuditLogOption, DbOption, JsonOption, cli_errors, emit_json, say
from mragent.cli.memory import audit_log
from mragent.core.store import open_store
from mragent.memory.audit_check import verify_store
from mragent.memory.audit_records import read_records

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
    as_json: JsonOption = False,
) -> None:
    """Print the newest audit records (optionally of some namespaces); --json: one list."""
    with cli_errors():
        records = [r for r in read_records(audit_log(audit).path) if not ns or r.ns in ns]
        if as_json:
            emit_json([record.as_dict() for record in records[-last:]])
            return
        for record in records[-last:]:
            say(
                f"{record.seq:>6}  {record.time}  {record.ns}  {record.principal}  "
                f"{record.action} {record.target}"
            )
