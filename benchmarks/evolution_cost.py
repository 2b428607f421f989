"""What one genome evaluation costs on the MuSiQue-100 training half, by traversal depth.

Usage:
    python benchmarks/evolution_cost.py [--embedder e5-small] [--repeats 2]

Ingests MuSiQue-100 with its pooled corpus (embedded FalkorDB of ``$MRAGENT_HOME``,
vectors from the embedding cache), embeds the 50 training questions once (timed:
the cost a run pays once), then evaluates the namespace's default genome at
traversal depth 1..4 and reports per depth the wall time of one evaluation (the
median of the repeats, depths interleaved), the mean deterministic work per
question and support recall@5. Evaluation figures are deterministic; the times
are this machine's at that moment.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from mragent.apps.bench import ensure_ingested
from mragent.apps.datasets import load_questions_corpus
from mragent.cli.common import embedder_namespace
from mragent.core.embedding import embedder_from_spec
from mragent.core.embedding.cache import cached
from mragent.core.store import open_store
from mragent.evolution.evaluator import Questions, evaluate_genome
from mragent.evolution.split import split_questions
from mragent.memory.reader import MemoryReader

HERE = Path(__file__).resolve().parent
DATASETS = Path(os.environ.get("MRAGENT_DATASETS", HERE.parent.parent / "shared" / "datasets"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default="e5-small")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None, help="JSON file for the figures")
    args = parser.parse_args()
    model = cached(embedder_from_spec(args.embedder))
    data, ns, _ = load_questions_corpus(
        "musique", DATASETS / "musique_100.json", DATASETS / "musique_100_corpus.json"
    )
    ns = embedder_namespace(ns, None, model)  # the namespace `mragent evolve` would use
    train, _ = split_questions(data.questions, "0.5", 0)
    with open_store(None) as store:
        ensure_ingested(store, data, ns, model)
        memory = MemoryReader(store, ns)
        start = time.perf_counter()
        questions = Questions.embedded(memory, train)
        embed_s = time.perf_counter() - start
        baseline = memory.default_genome
        genomes = {d: baseline.replace(traversalDepth=d) for d in (1, 2, 3, 4)}
        times: dict[int, list[float]] = {d: [] for d in genomes}
        figures = {}
        for _ in range(args.repeats):
            for depth, genome in genomes.items():
                start = time.perf_counter()
                evaluation = evaluate_genome(memory, questions, genome)
                times[depth].append(time.perf_counter() - start)
                figures[depth] = evaluation
    rows = {
        str(d): {
            "seconds": statistics.median(times[d]),
            "work": figures[d].work,
            "recall@5": figures[d].recall_at(5),
        }
        for d in genomes
    }
    report = {
        "embedder": str(memory.identity),
        "questions": len(train),
        "embed_questions_once_s": embed_s,
        "baseline": baseline.to_json_dict(),
        "by_depth": rows,
    }
    print(f"{len(train)} training questions embedded once in {embed_s:.1f} s ({args.embedder})")
    print("| depth | one evaluation (s) | per question (ms) | work | R@5 |")
    print("|---:|---:|---:|---:|---:|")
    for depth, row in rows.items():
        per_question = 1000 * row["seconds"] / len(train)
        print(
            f"| {depth} | {row['seconds']:.2f} | {per_question:.0f} | {row['work']:.0f} | "
            f"{100 * row['recall@5']:.1f} |"
        )
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
