"""What a second round costs: reconstruction latency of two genomes, interleaved.

Usage:
    python benchmarks/rounds_latency.py [--dataset musique] [--embedder e5-small]
        [--baseline default] [--variant real-model] [--repeats 2] [--json out.json]

Ingests the dataset's pool (once, into bench's namespace for it, in ``$MRAGENT_HOME``'s
embedded FalkorDB, or reuses it), then times every question with both genomes back
to back, alternating which goes first (``mragent.evolution.latency.retime``: one
warm-up pass, paired ratios, a distribution-free interval for their median). The
question's embedding comes from the disk cache after the warm-up, so what is timed
is cue search, the round trips, rerank and synthesis.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mragent.apps.bench import ensure_ingested
from mragent.cli.common import chosen_embedder, embedder_namespace
from mragent.cli.questions import load_questions
from mragent.core.embedding.cache import cached
from mragent.core.genome import load_genome
from mragent.core.store import open_store
from mragent.evolution.latency import retime
from mragent.memory.reader import MemoryReader

FILES = {
    "musique": ("musique_100.json", "musique_100_corpus.json"),
    "hotpotqa": ("hotpotqa_100.json", "hotpotqa_100_corpus.json"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=sorted(FILES), default="musique")
    parser.add_argument("--data", type=Path, default=Path(__file__).parents[2] / "shared/datasets")
    parser.add_argument("--embedder", default="e5-small")
    parser.add_argument("--baseline", default="default")
    parser.add_argument("--variant", default="real-model")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    questions_file, pool = FILES[args.dataset]
    data, ns, _ = load_questions(
        args.dataset, args.data / questions_file, args.data / pool, None, "time"
    )
    model = cached(chosen_embedder(args.embedder))
    ns = embedder_namespace(ns, None, model)
    baseline, variant = load_genome(args.baseline), load_genome(args.variant)
    with open_store(None) as store:
        ensure_ingested(store, data, ns, model)
        memory = MemoryReader(store, ns, embedder=model)
        check = retime(memory, data.questions, baseline, variant, repeats=args.repeats)
        trips = [memory.reconstruct(q.question, variant).round_trips for q in data.questions]
    low, high, confidence = check.interval
    figures = {
        "dataset": args.dataset,
        "embedder": model.identity.as_text() if model else None,
        "baseline": args.baseline,
        "variant": args.variant,
        "baseline_p50_ms": round(check.baseline_p50_ms, 2),
        "variant_p50_ms": round(check.variant_p50_ms, 2),
        "median_ratio": round(check.median_ratio, 3),
        "ratio_interval": [round(low, 3), round(high, 3), round(confidence, 3)],
        "pairs": len(check.ratios),
        "variant_round_trips_mean": round(sum(trips) / len(trips), 2),
    }
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
