"""``mragent explain``: show one reconstruction, on screen, in a graph browser, or as HTML."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mragent.apps.bench import ensure_ingested
from mragent.apps.datasets import corpus_namespace
from mragent.apps.explain import browser_cypher, build_trace, render_trace
from mragent.apps.html_view import write_html
from mragent.apps.trace_store import TRACE_CAP, persist_trace
from mragent.cli.common import (
    AsOfOption,
    CorpusNsOption,
    DbOption,
    EmbedderOption,
    GenomeOption,
    IncludePendingOption,
    ScopesOption,
    chosen_embedder,
    cli_errors,
    console,
    embedder_namespace,
    out,
    read_view,
)
from mragent.core.corpus import load_corpus, reference_corpus_path, validate_namespace
from mragent.core.errors import ConfigError
from mragent.core.genome import load_genome
from mragent.core.store import open_store
from mragent.memory.reader import Memory

QuestionArgument = Annotated[str, typer.Argument(help="The question to reconstruct.")]
CorpusOption = Annotated[
    Path | None,
    typer.Option(
        help="Corpus JSON to read (ingested if its namespace is empty). "
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
        f"keeps its newest {TRACE_CAP}.",
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
    cypher: CypherOption = False,
    persist: PersistOption = False,
    html: HtmlOption = None,
    scope: ScopesOption = None,
    include_pending: IncludePendingOption = False,
    as_of: AsOfOption = None,
    embedder: EmbedderOption = None,
) -> None:
    """Explain how one question is answered: cues, paths, pruning, ranking, answer, timings."""
    with cli_errors():
        if not question.strip():
            raise ConfigError("the question is empty")
        chosen = load_genome(genome)
        view = read_view(scope, include_pending, as_of)
        model = chosen_embedder(embedder)
        path = corpus or (None if ns else reference_corpus_path())
        data = load_corpus(path) if path else None
        if ns:
            namespace = validate_namespace(ns)
        else:
            assert path is not None  # without --ns the corpus defaults to the reference one
            namespace = embedder_namespace(corpus_namespace(path), None, model)
        with open_store(db) as store:
            if data is not None and ensure_ingested(store, data, namespace, model):
                console.print(
                    f"ingested {len(data.contents)} contents into {namespace!r}", highlight=False
                )
            trace = build_trace(Memory(store, namespace, model, view=view), question, chosen)
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
        if cypher:
            out.print(browser_cypher(trace), markup=False, highlight=False, soft_wrap=True, end="")
