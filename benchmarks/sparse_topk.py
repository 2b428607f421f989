"""BM25 top-k: the exhaustive scorer beside MaxScore pruning, on one synthetic index.

Usage:
    python benchmarks/sparse_topk.py [--docs 1000000] [--queries 200] [--k 9 64]
        [--admit 1.0] [--seed 0] [--json benchmarks/results/sparse-topk.json]

The index (:class:`~mragent.core.retrieval.sparse_index.SparseIndex`) is built
directly from arrays: ``--docs`` documents of 10 to 30 tokens drawn from a
Zipf-Mandelbrot vocabulary (weight ``1 / (rank + 20)`` over 300,000 words), so the
commonest word is on about one document in ten, as the commonest question word of a
million-content memory is. Each query holds one or two of the twenty commonest
words and the rest drawn like document tokens: short queries have 3 to 5 terms, long
ones 8 to 12. Ties break on random keys (:class:`~mragent.core.retrieval.slot_keys.SlotKeys`),
as cue texts break them.

For each query and ``k``, both paths give the ``k`` best with
:func:`~mragent.core.retrieval.cue_search.top_positions`: over every score
(:meth:`SparseIndex.scores`) and over what :meth:`SparseIndex.best` keeps. They are
timed in turn, the order alternating, so machine noise hits both alike, and their
answers are checked equal (slots, scores, order). ``--admit`` is the share of
documents the question's mask admits (its statistics are theirs). Reported, by query
length and ``k`` (9 is cue search's default ``cueK`` plus standbys, 64 the BM25
passages fused with dense ones): p50/p95 in ms per path, the mean number of hits
each handed to the selection (every document sharing a term, or those the bounds
left), and the ratio of p50s (exhaustive over pruned).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from mragent.core.retrieval.cue_search import top_positions
from mragent.core.retrieval.slot_keys import SlotKeys
from mragent.core.retrieval.sparse_index import SparseHits, SparseIndex

VOCABULARY = 300_000
ZIPF_OFFSET = 20
COMMON = 20
LENGTHS = {"short": (3, 5), "long": (8, 12)}


def _word_weights() -> np.ndarray:
    weights = 1.0 / (np.arange(VOCABULARY) + 1 + ZIPF_OFFSET)
    return np.cumsum(weights / weights.sum())


def build(docs: int, rng: np.random.Generator) -> SparseIndex:
    """A synthetic index of ``docs`` documents, from arrays (no text)."""
    lengths = rng.integers(10, 31, docs)
    cdf = _word_weights()
    words = np.searchsorted(cdf, rng.random(int(lengths.sum()))).astype(np.int64)
    owner = np.repeat(np.arange(docs, dtype=np.int64), lengths)
    pairs, tfs = np.unique(words * docs + owner, return_counts=True)
    del words, owner
    terms, slots = pairs // docs, pairs % docs
    used, starts = np.unique(terms, return_index=True)
    return SparseIndex.from_arrays(
        {
            "terms": np.array([f"w{term}" for term in used.tolist()]),
            "offsets": np.append(starts, len(terms)),
            "slots": slots.astype(np.int32),
            "tfs": tfs.astype(np.float32),
            "lengths": lengths.astype(np.float64),
            "live": np.ones(docs, dtype=bool),
        }
    )


def queries(count: int, low: int, high: int, rng: np.random.Generator) -> list[list[str]]:
    """``count`` queries of ``low..high`` terms, one or two of them very common."""
    cdf = _word_weights()
    out = []
    for _ in range(count):
        size = int(rng.integers(low, high + 1))
        common = rng.choice(COMMON, size=int(rng.integers(1, 3)), replace=False)
        rest = np.searchsorted(cdf, rng.random(size - len(common)))
        out.append([f"w{word}" for word in [*common.tolist(), *rest.tolist()]])
    return out


def _quantiles(values: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(values, n=20)
    return {"p50": round(statistics.median(values), 3), "p95": round(cuts[18], 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=200, help="per query length")
    parser.add_argument("--k", type=int, nargs="+", default=[9, 64])
    parser.add_argument("--admit", type=float, default=1.0, help="share the mask admits")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    index = build(args.docs, rng)
    keys = SlotKeys(f"cue {key:07d}" for key in rng.permutation(args.docs).tolist())
    mask = rng.random(args.docs) < args.admit
    built = time.perf_counter() - started
    common_df = index.document_frequency("w0", mask)

    def ranked(hits: SparseHits, k: int) -> list[tuple[int, float]]:
        best = top_positions(hits.scores, hits.slots, k, keys)
        scored[-1] += len(hits)
        return [(int(hits.slots[i]), float(hits.scores[i])) for i in best]

    paths: dict[str, Callable[[list[str], int], list[tuple[int, float]]]] = {
        "exhaustive": lambda terms, k: ranked(index.scores(terms, mask), k),
        "pruned": lambda terms, k: ranked(index.best(terms, mask, k), k),
    }
    scored = [0]
    report: dict[str, object] = {
        "docs": args.docs,
        "admitted": int(np.count_nonzero(mask)),
        "tokens": int(index.lengths.sum()),
        "common_word_documents": common_df,
        "build_s": round(built, 1),
        "queries_per_length": args.queries,
        "cases": {},
    }
    cases: dict[str, object] = {}
    paths["exhaustive"](["w0"], 1)  # the mask's statistics are kept from here on, as a reader's
    for name, (low, high) in LENGTHS.items():
        batch = queries(args.queries, low, high, rng)
        for k in args.k:
            times: dict[str, list[float]] = {path: [] for path in paths}
            documents = dict.fromkeys(paths, 0)
            for i, terms in enumerate(batch):
                order = list(paths) if i % 2 == 0 else list(reversed(paths))
                answers = {}
                for path in order:
                    scored[-1] = 0
                    tick = time.perf_counter()
                    answers[path] = paths[path](terms, k)
                    times[path].append((time.perf_counter() - tick) * 1000)
                    documents[path] += scored[-1]
                if answers["exhaustive"] != answers["pruned"]:
                    raise SystemExit(f"the paths differ on {terms} at k={k}")
            stats = {
                path: {**_quantiles(values), "hits_mean": round(documents[path] / len(batch))}
                for path, values in times.items()
            }
            ratio = stats["exhaustive"]["p50"] / stats["pruned"]["p50"]
            cases[f"{name} ({low}-{high} terms), k={k}"] = {**stats, "p50_ratio": round(ratio, 2)}
    report["cases"] = cases
    report["load_average_1m"] = round(os.getloadavg()[0], 2)  # the machine is shared
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
