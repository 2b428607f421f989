"""``mragent bench``: a genome over a corpus, beside flat baselines, in one process."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mragent.apps.baselines import FLAT_METHODS, FlatRetriever, flat_label, stored_vectors
from mragent.apps.evaluate import (
    QuestionResult,
    ScoreBase,
    Summary,
    run_questions,
    score,
    summarise,
)
from mragent.apps.negative.report import NegativeReport
from mragent.core.corpus import Corpus
from mragent.core.embedding import Embedder
from mragent.core.genome import PRESETS, Genome
from mragent.core.retrieval.abstention import AbstentionRule
from mragent.core.store.base import GraphStore
from mragent.memory.audit import AuditLog
from mragent.memory.ingest import ingest, namespace_stats
from mragent.memory.principal import BENCH, Principal
from mragent.memory.reader import MemoryReader
from mragent.memory.space import space_embedder


def ensure_ingested(
    store: GraphStore,
    corpus: Corpus,
    ns: str,
    embedder: Embedder | None = None,
    *,
    principal: Principal = BENCH,
) -> bool:
    """Ingest ``corpus`` into ``ns`` with ``embedder`` unless it already holds them all.

    A namespace holding fewer contents than the corpus (an ingest interrupted part
    way) is ingested again, which completes it: ingest merges on natural keys.

    Args:
        store, corpus, ns, embedder: Where, what, and embedded by which model.
        principal: Who the ingest is written and audited as: the caller on the
            command line (its write grants apply, an agent's memories start
            pending); ``system:bench`` for the tool's own namespaces.

    Raises:
        EmbeddingMismatch: when ``ns`` holds contents written with another embedder.
        AccessDenied: when ``principal`` may not write the shared scope.
    """
    expected = len({content.key for content in corpus.contents})
    if namespace_stats(store, ns).get("contents", 0) >= max(expected, 1):
        if embedder is not None:
            rows = store.run("get_space", {"ns": ns})
            space_embedder(ns, rows[0] if rows else None, embedder, "read")
        return False
    ingest(store, corpus, ns, principal=principal, audit=AuditLog(), embedder=embedder)
    return True


@dataclass
class SystemRun:
    """One system's results on the question set."""

    name: str
    summary: Summary
    results: list[QuestionResult]
    score: float | None = None


def run_bench(
    store: GraphStore,
    corpus: Corpus,
    ns: str,
    genome: Genome,
    progress: Callable[[int], None] | None = None,
    embedder: Embedder | None = None,
    abstention: AbstentionRule | None = None,
) -> list[SystemRun]:
    """Run the genome, the default genome (score base) and the flat baselines.

    ``embedder``: default the namespace's; the flat dense and hybrid baselines use
    the same one. ``abstention``: a fitted rule that decides when to abstain.
    """
    memory = MemoryReader(store, ns, embedder=embedder, abstention=abstention)
    questions = corpus.questions
    runs = []
    evolved = run_questions(memory, questions, genome, progress)
    if genome == PRESETS["default"]:
        default = evolved
    else:
        default = run_questions(memory, questions, PRESETS["default"], progress)
    base_summary = summarise(default)
    base = ScoreBase(base_summary.latency_p50_ms, base_summary.tokens, base_summary.hops)
    summary = summarise(evolved)
    runs.append(
        SystemRun(
            "mragent",
            summary,
            evolved,
            score(summary.accuracy, summary.latency_p50_ms, summary.tokens, summary.hops, base),
        )
    )
    if genome != PRESETS["default"]:
        runs.append(
            SystemRun(
                "mragent default",
                base_summary,
                default,
                score(
                    base_summary.accuracy,
                    base_summary.latency_p50_ms,
                    base_summary.tokens,
                    base_summary.hops,
                    base,
                ),
            )
        )
    contents = memory.snapshot()
    # The passage vectors the namespace already holds (a model embeds them once).
    vectors = stored_vectors(contents, memory.identity.dimension)
    for method in FLAT_METHODS:
        flat = FlatRetriever(contents, method, memory.embedder, vectors)
        results = flat.run(questions, genome.maxContent)
        if progress:
            progress(len(questions))
        runs.append(SystemRun(flat_label(method, memory.embedder), summarise(results), results))
    return runs


def bench_report(
    runs: list[SystemRun],
    *,
    genome: Genome,
    engine: str,
    version: str,
    corpus: str,
    ns: str,
    negative: NegativeReport | None = None,
    embedder: str | None = None,
    abstention: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON document ``--json`` writes (``negative``: the negative evaluation, if
    run; ``embedder``: the identity of the namespace's embedder; ``abstention``: the
    abstention section, with the rule fitted or judged)."""
    report = {
        "genome": genome.to_json_dict(),
        "embedder": embedder,
        "engine": engine,
        "engine_version": version,
        "corpus": corpus,
        "namespace": ns,
        "score_policy": "0.70*acc + 0.15*(1-p50/BASE_p50) + 0.10*(1-ctx/BASE_ctx)"
        " + 0.05*(1-hops/BASE_hops); BASE = default genome, same run",
        "systems": [
            {
                "name": run.name,
                "score": run.score,
                "summary": run.summary.to_dict(),
                "questions": [
                    {
                        "id": r.id,
                        "kind": r.kind,
                        "correct": r.correct,
                        "answer": r.answer,
                        "em": r.em,
                        "f1": r.f1,
                        "recall": r.recall,
                        "tokens": r.tokens,
                        "hops": r.hops,
                        "work": r.work,
                        "timings_ms": r.timings_ms,
                    }
                    for r in run.results
                ],
            }
            for run in runs
        ],
    }
    if negative is not None:
        report["negative"] = negative.to_dict()
    if abstention is not None:
        report["abstention"] = abstention
    return report
