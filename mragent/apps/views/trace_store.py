"""Persist explained reconstructions as small ``(:Trace)`` subgraphs.

A trace is telemetry, not memory. It is stored as

    (:Trace {id, ns, question, created_at, genome, paths})
        -[:VISITED {rank, evidence, kind, entry}]->(:Cue | :Tag | :Content)

with ``kind`` one of ``cue``, ``tag``, ``kept``, ``dropped``, ``cut``,
``entry`` (``seeded`` or ``bridged``) on the visit of a content that passage
seeding brought in without a cue path, and ``paths`` the used cue paths (node
ids joined by ``,``). No retrieval query
matches the ``Trace`` label or ``VISITED`` edges, and each namespace keeps only
its newest :data:`TRACE_CAP` traces, so traces can neither leak into answers
nor grow without bound. Deleting a namespace deletes its traces.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

from mragent.apps.views.browser_view import checked_id
from mragent.apps.views.explain import Entry, Fate, Trace
from mragent.core.store.base import GraphStore

TRACE_CAP = 100
"""Traces kept per namespace; older ones are deleted when a new one is stored."""


def _now() -> str:
    # Fixed width (always microseconds) so the text sorts as the time does.
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _visits(trace: Trace) -> list[dict[str, Any]]:
    rec = trace.reconstruction
    visits = [
        {"id": cue.id, "rank": i, "evidence": cue.score, "kind": "cue"}
        for i, cue in enumerate(rec.cues, 1)
    ]
    surviving = [p for p in trace.paths if p.fate in (Fate.KEPT, Fate.DROPPED, Fate.CUT)]
    best: dict[str, float] = {}
    for path in surviving:
        for tag in path.nodes[1:-1]:
            best[tag] = max(best.get(tag, 0.0), path.evidence)
    ordered = sorted(best.items(), key=lambda item: (-item[1], item[0]))
    visits += [
        {"id": tag, "rank": i, "evidence": evidence, "kind": "tag"}
        for i, (tag, evidence) in enumerate(ordered, 1)
    ]
    visits += [
        {"id": c.id, "rank": c.rank, "evidence": c.evidence, "kind": c.fate.value,
         "entry": None if c.entry is Entry.PATH else c.entry.value}
        for c in trace.contents
        if c.rank is not None
    ]  # fmt: skip
    return visits


def persist_trace(store: GraphStore, trace: Trace, *, keep: int = TRACE_CAP) -> str:
    """Store ``trace`` and delete the namespace's traces beyond the newest ``keep``.

    Returns:
        The new trace's id (a uuid4).

    Raises:
        ValueError: when ``keep`` is below 1.
    """
    if keep < 1:
        raise ValueError(f"keep must be >= 1, got {keep}")
    trace_id = str(uuid.uuid4())
    params = {
        "ns": trace.ns,
        "id": trace_id,
        "question": trace.question,
        "created_at": _now(),
        "genome": json.dumps(trace.genome.to_json_dict(), sort_keys=True),
        "paths": [",".join(checked_id(n) for n in p.nodes) for p in trace.used_paths],
        "visits": _visits(trace),
    }
    # Two statements, each atomic: a failure between them leaves one trace over
    # the cap, which the next persist prunes.
    store.run("trace_persist", params)
    store.run("trace_prune", {"ns": trace.ns, "keep": keep})
    return trace_id


def list_traces(store: GraphStore, ns: str, limit: int = TRACE_CAP) -> list[dict[str, Any]]:
    """The namespace's persisted traces, newest first, each with its visits."""
    rows = store.run("trace_get", {"ns": ns, "limit": limit})
    for row in rows:
        row["visits"] = [v for v in row["visits"] if v.get("id") is not None]
    return rows


def trace_paths(store: GraphStore, ns: str, trace_id: str) -> list[tuple[str, ...]]:
    """The paths a persisted trace used, as found again in the memory graph."""
    rows = store.run("trace_paths", {"ns": ns, "id": trace_id})
    return [tuple(row["ids"]) for row in rows]
