"""Entity resolution on a benchmark namespace: how many tags were linked, and a sample.

Reads the alias edges of namespaces ``mragent bench`` ingested (``tag_aliases``),
counts the tags linked and the pairs by rule (spelling variants, similarity 1.0; a
short name and its longer form, similarity of the names' embeddings), and prints a
seeded random sample of pairs to judge by hand (the judged samples are in
``benchmarks/results/aliases.md``).

With ``--sweep DATASET``, it also reconstructs that dataset's questions on the
first namespace with the namespace's default genome and each alias setting of
``--settings`` (a JSON list of gene maps), on the training and held-out halves
``evolve`` uses (``split_questions(..., "0.3", seed 0)``), and prints support
recall@2/5/10 and accuracy of each.

Usage::

    MRAGENT_HOME=<home of the bench run> python benchmarks/aliases.py mus-e5 hot-e5 \\
        --sample 50 --seed 0
    MRAGENT_HOME=<home> python benchmarks/aliases.py mus-e5 --sample 0 --sweep musique
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path

from quality import DATASETS, default_data

from mragent.apps.datasets import load_dataset
from mragent.apps.evaluate import run_questions, summarise
from mragent.core.store import open_store
from mragent.core.store.base import GraphStore
from mragent.evolution.split import split_questions
from mragent.memory.reader import MemoryReader

SETTINGS = (
    '[{}, {"aliasWeight": 0.5, "aliasThreshold": 1.0}, {"aliasWeight": 0.9, "aliasThreshold": 1.0},'
    ' {"aliasWeight": 0.9, "aliasThreshold": 0.9}, {"aliasWeight": 0.9, "aliasThreshold": 0.0}]'
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ns", nargs="+", help="namespaces to report on")
    parser.add_argument("--db", default=None, help="database URL (default: the embedded one)")
    parser.add_argument("--sample", type=int, default=50, help="pairs to print for judging")
    parser.add_argument("--seed", type=int, default=0, help="picks the sample")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--sweep", choices=sorted(DATASETS), help="also measure the genes")
    parser.add_argument("--settings", default=SETTINGS, help="alias gene maps (JSON list)")
    parser.add_argument("--data", type=Path, default=default_data(), help="the datasets folder")
    args = parser.parse_args(argv)
    store = open_store(args.db)
    reports = []
    for ns in args.ns:
        if not store.run("get_space", {"ns": ns}):
            parser.error(f"namespace {ns!r} does not exist in this database")
        pairs = store.run("tag_aliases", {"ns": ns})
        tags = store.run("namespace_stats", {"ns": ns})[0]["tags"]
        linked = {name for row in pairs for name in (row["src"], row["dst"])}
        short = [row["similarity"] for row in pairs if row["similarity"] < 1.0]
        sample = random.Random(args.seed).sample(pairs, min(args.sample, len(pairs)))
        reports.append(
            {
                "ns": ns,
                "tags": tags,
                "tags_linked": len(linked),
                "pairs": len(pairs),
                "spelling_variants": len(pairs) - len(short),
                "short_names": len(short),
                "short_name_similarity_median": round(statistics.median(short), 3)
                if short
                else None,
                "cooccurring": sum(bool(row["cooccur"]) for row in pairs),
                "sample": [[row["src"], row["dst"], row["similarity"]] for row in sample],
            }
        )
    if args.json:
        print(json.dumps(reports, indent=2))
        return 0
    for report in reports:
        print(
            f"{report['ns']}: {report['tags_linked']} of {report['tags']} tags linked, "
            f"{report['pairs']} pairs ({report['spelling_variants']} spelling variants, "
            f"{report['short_names']} short names, median similarity "
            f"{report['short_name_similarity_median']}); {report['cooccurring']} co-occur"
        )
        for i, (src, dst, similarity) in enumerate(report["sample"], start=1):
            print(f"  {i:3} {similarity:.3f}  {src!r} ~ {dst!r}")
    if args.sweep:
        sweep(store, args.ns[0], args.sweep, args.data, json.loads(args.settings))
    return 0


def sweep(store: GraphStore, ns: str, dataset: str, data: Path, settings: list[dict]) -> None:
    """Recall and accuracy of each alias setting on the two halves ``evolve`` uses."""
    questions, pool = DATASETS[dataset]
    corpus = load_dataset(dataset, data / questions, data / pool)
    train, held = split_questions(corpus.questions, "0.3", 0)
    memory = MemoryReader(store, ns)
    for genes in settings:
        genome = memory.default_genome.replace(**genes)
        halves = []
        for half in (train, held):
            summary = summarise(run_questions(memory, half, genome))
            recall = "/".join(f"{100 * summary.recall[k]:.1f}" for k in (2, 5, 10))
            halves.append(f"{recall} acc {100 * summary.accuracy:.0f}")
        print(f"{json.dumps(genes)}: training {halves[0]} | held-out {halves[1]}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
