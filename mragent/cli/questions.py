"""What ``bench``, ``evolve`` and ``explain`` read: a question set, in a dataset's format.

Kept apart from :mod:`mragent.cli.common` because loading a question set and
ingesting it import the dataset readers and the bench (and, below them, the
ingest path); the memory commands (``recall`` above all) share the common
options and need none of that.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from mragent.apps.bench import ensure_ingested
from mragent.apps.datasets import load_questions_corpus
from mragent.cli.common import console
from mragent.core.corpus import Corpus, validate_namespace
from mragent.core.embedding import Embedder
from mragent.core.errors import CorpusError
from mragent.core.store.base import GraphStore
from mragent.memory.principal import Principal


class Dataset(str, Enum):
    """Input formats ``bench`` and ``evolve`` read (see :mod:`mragent.apps.datasets`)."""

    MUSIQUE = "musique"
    HOTPOTQA = "hotpotqa"
    MRAGENT = "mragent"


DatasetOption = Annotated[
    Dataset | None,
    typer.Option(
        case_sensitive=False,
        help="Read --path in a public dataset's format (musique, hotpotqa) or the "
        "project's own (mragent).",
    ),
]
PathOption = Annotated[
    Path | None,
    typer.Option("--path", help="The --dataset file (JSON list, or JSON lines as .jsonl)."),
]

CorpusOption = Annotated[
    Path | None,
    typer.Option(
        help="Corpus JSON with questions (default: the bundled reference corpus); with "
        "--dataset musique|hotpotqa, the optional pooled corpus of that dataset."
    ),
]
CorpusNsOption = Annotated[
    str | None,
    typer.Option(help="Namespace to read (default: derived from the corpus; ingested if empty)."),
]


def load_questions(
    dataset: str | None, path: Path | None, corpus: Path | None, ns: str | None, purpose: str
) -> tuple[Corpus, str, Path]:
    """Load a question set and choose its namespace (given, or derived from the files).

    Raises:
        CorpusError: when the files are invalid or hold no questions.
    """
    data, derived, path = load_questions_corpus(dataset, path, corpus)
    if not data.questions:
        raise CorpusError(str(path), None, f"has no 'questions' to {purpose}")
    return data, validate_namespace(ns) if ns else derived, path


def ingest_if_empty(
    store: GraphStore,
    data: Corpus,
    namespace: str,
    embedder: Embedder | None,
    principal: Principal,
) -> None:
    """Ingest ``data`` into an empty namespace as ``principal``, saying so on stderr."""
    if ensure_ingested(store, data, namespace, embedder, principal=principal):
        console.print(f"ingested {len(data.contents)} contents into {namespace!r}", highlight=False)
