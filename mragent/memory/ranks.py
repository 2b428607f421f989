"""Edge ranks kept current by the writes that change them.

The traversal expands a node's ``tagFanout`` strongest edges (``rank``, and the
read-view ranks of REFERENCES: ``rank_references`` fragment). A write changes the
outgoing edges of the tags and cues it writes, and only theirs, so it re-ranks
those nodes: the cost follows the write, not the namespace it lands in.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from mragent.core.store.base import GraphStore

# Names per ranking statement: the statement's memory stays bounded however large
# the write (an ingest of a million contents touches hundreds of thousands of nodes).
RANK_CHUNK = 2_000


def rank_touched(
    store: GraphStore, ns: str, scope: str, tags: Sequence[str], cues: Sequence[str]
) -> None:
    """Re-rank the edges out of the tags and cues a write touched in ``scope``."""
    params = {"ns": ns, "scope": scope}
    for names in _chunks(tags):
        store.run("rank_links_of_tags", {**params, "names": names})
        store.run("rank_references_of_tags", {**params, "names": names})
    for texts in _chunks(cues):
        store.run("rank_links_of_cues", {**params, "texts": texts})


def _chunks(names: Sequence[str]) -> Iterator[list[str]]:
    for start in range(0, len(names), RANK_CHUNK):
        yield list(names[start : start + RANK_CHUNK])
