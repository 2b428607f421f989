"""Round trips and latency of the facade's recall, before and after it became one trip.

Usage:
    python benchmarks/recall_round_trips.py [--repeats 20] [--db URL] [--out FILE]

Ingests the reference corpus into a namespace of its own (on the embedded
FalkorDB unless ``--db`` names another), then answers every corpus question
``--repeats`` times in an interleaved order two ways, on one warm store:

* ``before``: the facade's recall as it was, rebuilt here from its parts: a
  ``get_space`` freshness check, the traversal, then a ``memory_records`` query
  for the provenance of the contents handed to synthesis (three round trips);
* ``after``: :meth:`mragent.MemorySession.recall` as it is (the reader follows the
  namespace version itself, and the traversal brings the provenance).

Round trips are counted by wrapping the store's ``run`` (every named query goes
through it); latency is wall time per recall. Both must hand back the same
memories with the same provenance, or the script stops. Prints both side by side
and writes them as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mragent import open_memory
from mragent.apps.bench import ensure_ingested
from mragent.core.corpus import load_corpus, reference_corpus_path
from mragent.core.store import open_store
from mragent.core.store.base import GraphStore
from mragent.core.view import ReadView
from mragent.memory.reader import MemoryReader
from mragent.memory.records import MemoryRecord


class Counting:
    """Counts the named queries a store runs (the store itself answers them)."""

    def __init__(self, store: GraphStore) -> None:
        self.calls: Counter[str] = Counter()
        self._run = store.run

        def run(name: str, params: dict[str, Any] | None = None, **render: Any) -> Any:
            self.calls[name] += 1
            return self._run(name, params, **render)

        store.run = run  # type: ignore[method-assign]


def _before(store: GraphStore, ns: str, reader: MemoryReader) -> Callable[[str], list[tuple]]:
    """The recall of the previous facade: freshness check, traversal, provenance."""

    def recall(question: str) -> list[tuple]:
        store.run("get_space", {"ns": ns})  # FreshReader's check of the audit anchor
        rec = reader.reconstruct(question)
        ids = [item.candidate.id for item in rec.context.items]
        records: dict[str, MemoryRecord] = {}
        if ids:
            rows = store.run("memory_records", {"ns": ns, "scopes": ["shared"], "ids": ids})
            records = {row["id"]: MemoryRecord.from_row(row) for row in rows}
        return [(i, records[i].trust, records[i].principal, records[i].recorded_at) for i in ids]

    return recall


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--db", default=None, help="Database URL (default: embedded FalkorDB).")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="mragent-rt-"))
    # Credentials, audit log and index copies of this run only.
    os.environ["MRAGENT_CREDENTIALS"] = str(scratch / "credentials.json")
    os.environ["MRAGENT_AUDIT_LOG"] = str(scratch / "audit.jsonl")
    os.environ["MRAGENT_INDEX_DIR"] = str(scratch / "index")
    corpus = load_corpus(reference_corpus_path())
    questions = [q.question for q in corpus.questions]
    ns = f"bench-rt-{uuid.uuid4().hex[:8]}"
    store = open_store(args.db)
    try:
        ensure_ingested(store, corpus, ns)
        session = open_memory(ns, principal="human:bench", store=store)
        forms: dict[str, Callable[[str], list[tuple]]] = {
            "before": _before(store, ns, MemoryReader(store, ns, view=ReadView())),
            "after": lambda q: [
                (c.id, c.trust, c.principal, c.recorded_at) for c in session.recall(q).context
            ],
        }
        for question in questions:  # warm both readers, and check they agree
            seen = {name: recall(question) for name, recall in forms.items()}
            if seen["before"] != seen["after"]:
                sys.exit(f"the two forms disagree on {question!r}: {seen}")
        counting = Counting(store)
        times: dict[str, list[float]] = {name: [] for name in forms}
        trips: dict[str, Counter[str]] = {name: Counter() for name in forms}
        for repeat in range(args.repeats):
            order = list(forms) if repeat % 2 == 0 else list(reversed(forms))
            for question in questions:
                for name in order:
                    counting.calls.clear()
                    start = time.perf_counter()
                    forms[name](question)
                    times[name].append((time.perf_counter() - start) * 1000)
                    trips[name].update(counting.calls)
        recalls = args.repeats * len(questions)
        report = {
            "engine": store.capabilities.engine,
            "questions": len(questions),
            "recalls_per_form": recalls,
            **{
                name: {
                    "round_trips_per_recall": sum(trips[name].values()) / recalls,
                    "queries": {q: n / recalls for q, n in sorted(trips[name].items())},
                    "p50_ms": round(statistics.median(times[name]), 3),
                    "p95_ms": round(_percentile(times[name], 0.95), 3),
                    "mean_ms": round(statistics.fmean(times[name]), 3),
                }
                for name in forms
            },
        }
        print(f"{'form':<8}{'trips/recall':>14}{'p50 ms':>10}{'p95 ms':>10}{'mean ms':>10}")
        for name in forms:
            row = report[name]
            print(
                f"{name:<8}{row['round_trips_per_recall']:>14.2f}{row['p50_ms']:>10.2f}"
                f"{row['p95_ms']:>10.2f}{row['mean_ms']:>10.2f}   {row['queries']}"
            )
        if args.out:
            args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    finally:
        store.run("delete_namespace", {"ns": ns})
        store.close()


if __name__ == "__main__":
    main()
