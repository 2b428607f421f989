"""``mragent reembed``: move a namespace's cues into another embedder's space."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

import typer

from mragent.apps.reembed.rewrite import BATCH_SIZE, ReembedReport, reembed
from mragent.cli.common import (
    AuditLogOption,
    DbOption,
    EmbedderOption,
    JsonOption,
    NsOption,
    chosen_embedder,
    cli_errors,
    console,
    emit_json,
    progress_bar,
    say,
)
from mragent.cli.identity import PrincipalOption, writer
from mragent.cli.memory import audit_log
from mragent.core.corpus import validate_namespace
from mragent.core.errors import ConfigError
from mragent.core.store import open_store

BatchSizeOption = Annotated[
    int, typer.Option(min=1, max=10_000, help="Cues or contents per page and per atomic write.")
]


def reembed_command(
    ns: NsOption,
    embedder: EmbedderOption = None,
    principal: PrincipalOption = None,
    db: DbOption = None,
    audit: AuditLogOption = None,
    batch_size: BatchSizeOption = BATCH_SIZE,
    as_json: JsonOption = False,
) -> None:
    """Re-embed every cue and content of a namespace (every scope) with --embedder, and restamp it.

    The namespace is marked as being re-embedded before the first write and refused to
    readers and writers until the run finishes; an interrupted run is resumed
    by running the same command again.
    """
    with cli_errors():
        who = writer(principal)
        validate_namespace(ns)
        target = chosen_embedder(embedder)
        if target is None:
            raise ConfigError("--embedder SPEC (or MRAGENT_EMBEDDER) names the target embedder")
        with open_store(db) as store, progress_bar() as progress:
            task = progress.add_task(f"re-embedding {ns!r}", total=None)

            def advance(done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)

            try:
                report = reembed(
                    store,
                    ns,
                    target,
                    principal=who,
                    audit=audit_log(audit),
                    progress=advance,
                    batch_size=batch_size,
                )
            except KeyboardInterrupt:
                progress.stop()
                console.print(
                    f"[red]interrupted:[/red] namespace {ns!r} is left half re-embedded towards "
                    f"{target.identity.as_text()}; run the same command again to finish",
                    highlight=False,
                    soft_wrap=True,
                )
                raise typer.Exit(code=130) from None
        if as_json:
            emit_json(asdict(report))
        else:
            _print_report(report, target.identity.dimension)


def _print_report(report: ReembedReport, dimension: int) -> None:
    ns = report.namespace
    if not report.changed:
        say(f"namespace {ns!r} already uses {report.after}; nothing to re-embed")
        return
    how = "resumed and finished" if report.resumed else "re-embedded"
    index = f"; rebuilt the vector index for dimension {dimension}" if report.index_rebuilt else ""
    say(
        f"{how} {report.cues} of {report.total} cues and {report.contents} of "
        f"{report.content_total} contents of {ns!r} from {report.before} "
        f"to {report.after} in {report.batches} batch(es){index}"
    )
