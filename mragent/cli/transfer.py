"""``export`` and ``import``: a namespace's memories to and from one file.

Exit codes: 0 done, 1 database or audit-log error, 2 bad input (a corrupt file,
an invalid record, a mismatched embedder, replace without --yes), 3 refused by
the memory's rules (an agent principal, a key held by another id).
"""

from __future__ import annotations

from dataclasses import asdict
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from mragent.apps.transfer.export import export_memories
from mragent.apps.transfer.importer import import_memories
from mragent.cli.common import (
    AuditLogOption,
    DbOption,
    EmbedderOption,
    JsonOption,
    NsOption,
    ScopesOption,
    check_embedder,
    chosen_embedder,
    cli_errors,
    emit_json,
    say,
)
from mragent.cli.identity import PrincipalOption, ReaderOption, reader, writer
from mragent.cli.memory import audit_log
from mragent.core.corpus import validate_namespace
from mragent.core.store import open_store
from mragent.core.view import DEFAULT_SCOPE

FileArgument = Annotated[Path, typer.Argument(help="The memories file (mragent-memories/1).")]


class Mode(str, Enum):
    """How an import meets the memories already in the namespace."""

    MERGE = "merge"
    REPLACE = "replace"


def export_command(
    file: FileArgument,
    ns: NsOption = "default",
    scope: ScopesOption = None,
    include_forgotten: Annotated[
        bool,
        typer.Option(
            "--include-forgotten", help="Export tombstones too (forgotten and purged memories)."
        ),
    ] = False,
    principal: ReaderOption = None,
    db: DbOption = None,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Write a namespace's memories (every version, oldest first) to FILE, atomically."""
    with cli_errors():
        validate_namespace(ns)
        scopes = scope or [DEFAULT_SCOPE]
        who = reader(principal)
        if who is not None:
            who.check_read(scopes)
        with open_store(db) as store:
            check_embedder(store, ns, chosen_embedder(embedder), "read")
            report = export_memories(
                store, ns, file, scopes=scopes, include_forgotten=include_forgotten
            )
        if as_json:
            emit_json(asdict(report))
            return
        dropped = (
            f"; {report.dropped_references} dependency(ies) on forgotten memories left out"
            if report.dropped_references
            else ""
        )
        say(
            f"exported {report.memories} memory version(s) ({report.forgotten} forgotten) "
            f"from {ns!r} to {report.path}{dropped}"
        )


def import_command(
    file: FileArgument,
    ns: NsOption = "default",
    mode: Annotated[
        Mode,
        typer.Option(
            case_sensitive=False,
            help="merge: skip versions whose id the namespace holds; replace: delete the "
            "namespace's memories in the file's scopes first (needs --yes).",
        ),
    ] = Mode.MERGE,
    yes: Annotated[
        bool, typer.Option("--yes", help="Confirm --mode replace (it deletes memories).")
    ] = False,
    readmit: Annotated[
        bool, typer.Option(help="Import memories whose text the namespace forgot, anyway.")
    ] = False,
    principal: PrincipalOption = None,
    db: DbOption = None,
    audit: AuditLogOption = None,
    embedder: EmbedderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Import FILE into a namespace; every record is checked before anything is written."""
    with cli_errors():
        who = writer(principal)
        validate_namespace(ns)
        model = chosen_embedder(embedder)
        with open_store(db) as store:
            report = import_memories(
                store,
                ns,
                file,
                principal=who,
                audit=audit_log(audit),
                mode=mode.value,
                confirm_replace=yes,
                embedder=model,
                readmit=readmit,
            )
        if as_json:
            emit_json(asdict(report))
            return
        deleted = f", {report.deleted} node(s) deleted first" if report.mode == "replace" else ""
        say(
            f"imported {report.written} memory version(s) into {ns!r} "
            f"({report.forgotten} forgotten, {report.edges} edge(s); "
            f"{report.skipped} already present{deleted})"
        )
