"""Edge ranks kept current by the writes that change them.

The traversal expands a node's ``tagFanout`` strongest edges (``rank``, and the
read-view ranks of REFERENCES: ``rank_references`` fragment). A write changes the
outgoing edges of the tags and cues it writes, and only theirs, so it re-ranks
those nodes: the cost follows the write, not the namespace it lands in. An import or
a migration re-ranks every node of the namespace the same way (:func:`rank_namespace`).

A ranking statement holds every edge it ranks (sorted, collected, each one set), so
a large write's nodes are ranked in statements of at most :data:`EDGE_BUDGET`
edges, packed from their counted degrees: the ingest of a million generated
contents touches 543k tags, and its first 2,000 names (the years, sorted together,
4,700 edges each) held about a million edges in one statement, past Neo4j's
transaction memory limit at a 2 GB heap. Ranking is per node, so how the nodes are
grouped never changes a rank.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any

from mragent.core.store.base import GraphStore

RANK_CHUNK = 2_000
"""Names whose degrees one count statement reads (and at most one ranking statement ranks)."""
EDGE_BUDGET = 50_000
"""Edges one ranking statement may hold, when the nodes' degrees were counted."""
UNCOUNTED = 50
"""A write touching at most this many names ranks them at once, uncounted: a
remember's few tags pay no extra round trip, and even fifty of the largest tags
hold a few hundred thousand edges."""


def rank_touched(
    store: GraphStore, ns: str, scope: str, tags: Sequence[str], cues: Sequence[str]
) -> None:
    """Re-rank the edges out of the tags and cues a write touched in ``scope``."""
    params = {"ns": ns, "scope": scope}
    for names in _budgeted(store, "tag_edge_counts", params, "names", tags):
        store.run("rank_links_of_tags", {**params, "names": names})
        store.run("rank_references_of_tags", {**params, "names": names})
    for texts in _budgeted(store, "cue_edge_counts", params, "texts", cues):
        store.run("rank_links_of_cues", {**params, "texts": texts})


def rank_namespace(store: GraphStore, ns: str) -> None:
    """Re-rank every edge of ``ns``, scope by scope, in :func:`rank_touched`'s bounded
    statements (edges never cross scopes, so each scope's nodes are ranked alone)."""
    tags: dict[str, list[str]] = defaultdict(list)
    cues: dict[str, list[str]] = defaultdict(list)
    for row in store.run("tag_names", {"ns": ns}):
        tags[row["scope"]].append(row["name"])
    for row in store.run("cue_texts", {"ns": ns}):
        cues[row["scope"]].append(row["text"])
    for scope in sorted(tags.keys() | cues.keys()):
        rank_touched(store, ns, scope, tags[scope], cues[scope])


def _budgeted(
    store: GraphStore, counts: str, params: dict[str, Any], key: str, names: Sequence[str]
) -> Iterator[list[str]]:
    """``names`` in groups of at most :data:`EDGE_BUDGET` counted edges (a node over
    it alone is a group of its own), in their order."""
    if len(names) <= UNCOUNTED:
        if names:
            yield list(names)
        return
    for start in range(0, len(names), RANK_CHUNK):
        chunk = list(names[start : start + RANK_CHUNK])
        degree = {
            row["name"]: int(row["edges"]) for row in store.run(counts, {**params, key: chunk})
        }
        group: list[str] = []
        edges = 0
        for name in chunk:
            size = degree.get(name, 0)
            if group and edges + size > EDGE_BUDGET:
                yield group
                group, edges = [], 0
            group.append(name)
            edges += size
        if group:
            yield group
