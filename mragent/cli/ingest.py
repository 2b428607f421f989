"""``mragent ingest``: load a corpus file into a namespace."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from mragent.cli.common import (
    AuditLogOption,
    DbOption,
    EmbedderOption,
    JsonOption,
    NsOption,
    ScopeOption,
    chosen_embedder,
    cli_errors,
    emit_json,
    progress_bar,
    say,
)
from mragent.cli.identity import PrincipalOption, writer
from mragent.cli.memory import audit_log
from mragent.core.corpus import validate_namespace
from mragent.core.heap import hold_mmap_threshold
from mragent.core.store import open_store
from mragent.core.view import DEFAULT_SCOPE, validate_scope
from mragent.memory.ingest import BATCH_SIZE, ingest
from mragent.memory.ingest_source import PARALLEL_MIN


def ingest_command(
    file: Annotated[Path, typer.Argument(help="Corpus JSON in the mragent format.")],
    principal: PrincipalOption = None,
    ns: NsOption = "default",
    scope: ScopeOption = DEFAULT_SCOPE,
    db: DbOption = None,
    audit: AuditLogOption = None,
    batch_size: Annotated[
        int, typer.Option(min=1, max=10_000, help="Contents per atomic batch.")
    ] = BATCH_SIZE,
    as_json: JsonOption = False,
    readmit: Annotated[
        bool, typer.Option(help="Write texts identical to forgotten memories anyway.")
    ] = False,
    embedder: EmbedderOption = None,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            max=64,
            help=f"Processes extracting a corpus of {PARALLEL_MIN:,} contents or more "
            "while it is checked (at most one per CPU).",
        ),
    ] = 2,
) -> None:
    """Load a corpus into a namespace (streamed; idempotent; validated before any write;
    audited)."""
    with cli_errors():
        who = writer(principal)
        validate_namespace(ns)
        validate_scope(scope)
        model = chosen_embedder(embedder)
        hold_mmap_threshold()  # a corpus of millions: keep the freed megabytes returnable
        with open_store(db) as store, progress_bar() as progress:
            # Batches: each is embedded (the long part with a real model), then written.
            task = progress.add_task("batches", total=None)

            def advance(done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)

            report = ingest(
                store,
                file,
                ns,
                principal=who,
                audit=audit_log(audit),
                scope=scope,
                batch_size=batch_size,
                readmit=readmit,
                progress=advance,
                embedder=model,
                workers=min(workers, os.cpu_count() or 1),
            )
        added = {
            k: report.nodes_after[k] - report.nodes_before.get(k, 0) for k in report.nodes_after
        }
        if as_json:
            emit_json(
                {"file": str(file), "namespace": ns, "contents": report.contents,
                 "batches": report.batches, "added": added}
            )  # fmt: skip
            return
        say(
            f"ingested {report.contents} contents from {file} into {ns!r} "
            f"in {report.batches} batch(es); added "
            + ", ".join(f"{v} {k}" for k, v in added.items())
        )
