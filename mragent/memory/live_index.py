"""A reader's indexes over one namespace, kept current by the namespace's change feed.

:class:`LiveIndex` holds the dense and sparse cue indexes
(:class:`~mragent.core.retrieval.cue_search.CueIndex`) and the passage index
(:class:`~mragent.core.retrieval.passages.PassageIndex`: BM25 and passage
vectors) of the scopes a reader reads (the feed is filtered on them: no other
scope's words reach the reader), tied to the namespace's identity (``uid``) and
to the version they reflect.
:meth:`LiveIndex.refresh` brings them to the database's version by reading only
what changed since (``index_cues`` and ``index_contents`` rows
stamped after it, ``space_dropped`` for deleted cues); a reader whose version
the feed can no longer serve (older than ``dropped_floor``), or a namespace that
was deleted and written again (a new ``uid``), is rebuilt from scratch.

Builds are deterministic: a full build adds cues in text order, a refresh in
(version, text) order, on one thread, with a fixed HNSW seed; only a full build of
at least :data:`~mragent.core.retrieval.cue_search.BULK_THREADS_MIN` vectors inserts
on every CPU, and is then the same up to the rare approximate neighbour.

Persisted copies (:mod:`mragent.memory.index_files`) let a new process start
from the last saved version instead of reading the namespace.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from mragent.core.embedding import EmbedderIdentity
from mragent.core.errors import MragentError
from mragent.core.retrieval.cue_search import CueIndex
from mragent.core.retrieval.passages import PassageIndex
from mragent.core.store.base import GraphStore

FEED_PAGE = 2_000  # rows per change-feed page
FEED_WINDOW = 8  # versions in the change feed's first window (an ingest batch is one)


@dataclass
class LiveIndex:
    """The cue and passage indexes of one namespace at one version.

    Attributes:
        ns: The namespace.
        scopes: The scopes indexed (sorted).
        identity: The embedder the cue vectors come from.
        cues: Dense and sparse cue indexes.
        passages: The passage index (BM25 and passage vectors).
        uid: The namespace's identity the indexes belong to (None before a build).
        version: The namespace version the indexes reflect (-1: nothing read yet).
        unsaved: Rows applied since the last persisted copy.
        purged_v: The namespace's purge version (``purged_v``) when they were built.
    """

    ns: str
    scopes: tuple[str, ...]
    identity: EmbedderIdentity
    cues: CueIndex
    passages: PassageIndex
    uid: str | None = None
    version: int = -1
    unsaved: int = 0
    purged_v: int = 0

    @classmethod
    def empty(cls, ns: str, scopes: tuple[str, ...], identity: EmbedderIdentity) -> LiveIndex:
        """Indexes with nothing in them (the next refresh is a full build)."""
        dimension = identity.dimension
        scopes = tuple(sorted(set(scopes)))
        passages = PassageIndex(dimension, dense=not identity.lexical)
        return cls(ns, scopes, identity, CueIndex(dimension), passages)

    def stale(self, space: dict[str, Any]) -> bool:
        """Whether the change feed cannot bring these indexes to ``space`` (a
        ``get_space`` row): another namespace identity, a version from the future,
        one older than the oldest dropped cue the namespace still records, or a
        purge since they were built (they hold the erased text's words: its title,
        its terms in the vocabulary, so they are rebuilt, never carried forward)."""
        return (
            self.uid != space.get("uid")
            or self.version > int(space["version"])
            or (self.version >= 0 and self.version < int(space["dropped_floor"]))
            or (self.version >= 0 and self.purged_v != int(space["purged_v"]))
        )

    def refresh(self, store: GraphStore, space: dict[str, Any]) -> int:
        """Apply every change after :attr:`version` up to ``space['version']``.

        ``space`` must have been read before the feed (it is, by the caller): a write
        that lands meanwhile is stamped later and read again next time, and applying
        a row twice changes nothing.

        Returns:
            How many rows were applied.
        """
        if self.version == int(space["version"]) and self.uid == space.get("uid"):
            return 0
        full = self.version < 0
        since = self.version
        dimension = self.identity.dimension
        upto = int(space["version"])
        feed = self._feed(store, "index_cues", since, upto, {})
        cue_rows = [_with_vector(row, dimension) for row in feed]
        # A full build in text order, a refresh in (version, text) order, then the scope
        # (a text is one cue per scope): never the random id, so the HNSW graph built is
        # the same whatever ids the engine's ingest drew.
        cue_rows.sort(
            key=lambda row: (
                (row["text"], row["scope"]) if full else (row["v"], row["text"], row["scope"])
            )
        )
        applied = self.cues.add(cue_rows, bulk=full)
        if not full:
            dropped = store.run("space_dropped", {"ns": self.ns, "since": since})
            applied += self.cues.drop(dropped[0]["ids"] if dropped else [])
        vectors = {"vectors": self.passages.dense_entry}
        contents = self._feed(store, "index_contents", since, upto, vectors)
        applied += self.passages.apply(contents, full)
        self.uid, self.version = space.get("uid"), upto
        self.purged_v = int(space["purged_v"])
        self.unsaved += applied
        return applied

    def _feed(
        self, store: GraphStore, query: str, since: int, upto: int, extra: dict[str, Any]
    ) -> Iterator[dict[str, Any]]:
        """Every row of a change-feed query stamped in (``since``, ``upto``] (``extra``:
        the query's other parameters).

        The versions are read window by window (the database finds a window's nodes
        through its version index), each window page by page on the id. A window
        starts at :data:`FEED_WINDOW` versions and halves when it needs more than
        one page, doubles when it fills less than half of one: a page costs what it
        returns, however large the namespace.
        """
        params = {"ns": self.ns, "scopes": list(self.scopes), "limit": FEED_PAGE, **extra}
        low, width = since, FEED_WINDOW
        while low < upto:
            high = min(upto, low + width)
            after, pages, rows_read = "", 0, 0
            while True:
                rows = store.run(query, {**params, "since": low, "upto": high, "after": after})
                yield from rows
                pages, rows_read = pages + 1, rows_read + len(rows)
                if len(rows) < FEED_PAGE:
                    break
                after = rows[-1]["id"]
            if pages > 1:
                width = max(1, width // 2)
            elif rows_read < FEED_PAGE // 2:
                width *= 2
            low = high


def _with_vector(row: dict[str, Any], dimension: int) -> dict[str, Any]:
    """A cue row whose embedding is a float32 vector of the stamped dimension (a page's
    lists of floats are dropped as soon as they are read)."""
    vector = np.asarray(row["embedding"], dtype=np.float32)
    if vector.shape != (dimension,):
        raise MragentError(
            f"cue {row['id']} of namespace has a vector of shape {vector.shape}; "
            f"its embedder stamps {dimension} dimensions"
        )
    return {**row, "embedding": vector}
