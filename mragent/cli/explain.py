"""``mragent explain``: show one reconstruction, on screen, in a graph browser, or as HTML."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mragent.apps.bench import ensure_ingested
from mragent.apps.datasets import load_questions_corpus
from mragent.apps.views.browser_view import browser_cypher
from mragent.apps.views.explain import build_trace
from mragent.apps.views.explain_json import trace_json
from mragent.apps.views.explain_screen import render_trace
from mragent.apps.views.html_view import write_html
from mragent.apps.views.trace_store import TRACE_CAP, persist_trace
from mragent.cli.common import (
    AsOfOption,
    DbOption,
    EmbedderOption,
    GenomeOption,
    IncludePendingOption,
    JsonOption,
    ScopesOption,
    chosen_embedder,
    cli_errors,
    console,
    embedder_namespace,
    emit_json,
    out,
    read_view,
)
from mragent.cli.identity import ReaderOption, corpus_writer, granted_view
from mragent.cli.questions import CorpusNsOption, DatasetOption, PathOption
from mragent.core.corpus import Corpus, validate_namespace
from mragent.core.errors import ConfigError
from mragent.core.genome import load_genome
from mragent.core.store import open_store
from mragent.memory.reader import MemoryReader

QuestionArgument = Annotated[str, typer.Argument(help="The question to reconstruct.")]
CorpusOption = Annotated[
    Path | None,
    typer.Option(
        help="Corpus JSON to read (ingested if its namespace is empty); with --dataset "
        "musique|hotpotqa, the optional pooled corpus of that dataset. "
        "Default without --ns: the bundled reference corpus."
    ),
]
CypherOption = Annotated[
    bool,
    typer.Option(
        "--cypher",
        help="Print a Cypher query drawing the paths used (Neo4j Browser, Memgraph Lab, "
        "FalkorDB browser) on stdout; the trace goes to stderr.",
    ),
]
PersistOption = Annotated[
    bool,
    typer.Option(
        "--persist",
        help=f"Store the trace as a (:Trace)-[:VISITED]->() subgraph; each namespace "
        f"keeps its newest {TRACE_CAP}. Needs a write grant on every scope read.",
    ),
]
HtmlOption = Annotated[
    Path | None,
    typer.Option("--html", help="Write a standalone interactive graph of the trace here."),
]


def explain_command(
    question: QuestionArgument,
    genome: GenomeOption = None,
    db: DbOption = None,
    ns: CorpusNsOption = None,
    corpus: CorpusOption = None,
    dataset: DatasetOption = None,
    path: PathOption = None,
    cypher: CypherOption = False,
    persist: PersistOption = False,
    html: HtmlOption = None,
    scope: ScopesOption = None,
    include_pending: IncludePendingOption = False,
    as_of: AsOfOption = None,
    embedder: EmbedderOption = None,
    principal: ReaderOption = None,
    as_json: JsonOption = False,
) -> None:
    """Explain how one question is answered: cues, paths, pruning, ranking, answer, timings.

    --json prints the trace as one JSON document on stdout (with --cypher, the query
    goes to stderr instead)."""
    with cli_errors():
        if not question.strip():
            raise ConfigError("the question is empty")
        chosen = load_genome(genome) if genome else None  # None: the namespace's default
        view = granted_view(principal, read_view(scope, include_pending, as_of))
        who = corpus_writer(principal)
        if persist:
            # A stored trace holds what was read: writing it needs a write grant.
            for read in view.scopes:
                who.check_write(read)
        model = chosen_embedder(embedder)
        data, namespace = _memory_source(dataset and dataset.value, path, corpus, ns)
        # bench's namespace for these files and this embedder (a given --ns is kept).
        namespace = embedder_namespace(namespace, ns, model)
        with open_store(db) as store:
            if data is not None and ensure_ingested(store, data, namespace, model, principal=who):
                console.print(
                    f"ingested {len(data.contents)} contents into {namespace!r}", highlight=False
                )
            trace = build_trace(MemoryReader(store, namespace, model, view=view), question, chosen)
            if not as_json:
                render_trace(trace, console if cypher else out)
            if persist:
                trace_id = persist_trace(store, trace)
                console.print(
                    f"persisted trace {trace_id} (namespace {namespace!r} keeps the newest "
                    f"{TRACE_CAP}); see README 'See a reconstruction' for the Browser query",
                    highlight=False,
                )
        if html:
            size = write_html(trace, html)
            console.print(f"wrote {html} ({size / 1024:.0f} KiB, works offline)", highlight=False)
        if as_json:
            emit_json(trace_json(trace))
        if cypher:
            # With --json the trace owns stdout: the query goes to stderr.
            screen = console if as_json else out
            query = browser_cypher(trace)
            screen.print(query, markup=False, highlight=False, soft_wrap=True, end="")


def _memory_source(
    dataset: str | None, path: Path | None, corpus: Path | None, ns: str | None
) -> tuple[Corpus | None, str]:
    """The corpus to ingest (None: read ``--ns`` as it is) and the namespace to read.

    The files and namespaces are bench's, so a memory ``bench`` built is read again.
    """
    if ns and dataset is None and path is None and corpus is None:
        return None, validate_namespace(ns)
    data, derived, _ = load_questions_corpus(dataset, path, corpus)
    return data, validate_namespace(ns) if ns else derived
