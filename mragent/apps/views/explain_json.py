"""An explain trace as one JSON document (``explain --json``, the facade, the MCP tool).

The same facts :func:`~mragent.apps.views.explain.render_trace` prints: entry cues
with their scores, every path with its nodes, evidence and fate, the contents in
final order, the answer and the time per stage.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from mragent.apps.views.explain import Trace, TracePath


def _path(trace: Trace, path: TracePath) -> dict[str, Any]:
    nodes = []
    for node_id in path.nodes:
        node = trace.nodes.get(node_id)
        nodes.append(
            {"id": node_id, "label": node.label if node else None, "name": trace.name(node_id)}
        )
    return {
        "nodes": nodes,
        "evidence": path.evidence,
        "hops": path.hops,
        "fate": path.fate.value,
        "reason": path.reason,
    }


def trace_json(trace: Trace) -> dict[str, Any]:
    """The trace as plain JSON types."""
    rec = trace.reconstruction
    return {
        "question": trace.question,
        "namespace": trace.ns,
        "engine": trace.engine,
        "genome": trace.genome.to_json_dict(),
        "cues": [asdict(c) for c in rec.cues],
        "paths": [_path(trace, p) for p in trace.paths],
        "contents": [{**asdict(c), "fate": c.fate.value} for c in trace.contents],
        "answer": {
            "text": rec.answer.text,
            "abstained": rec.answer.abstained,
            "sentence": rec.answer.sentence,
        },
        "timings_ms": rec.timings_ms,
        "explain_ms": trace.explain_ms,
    }
