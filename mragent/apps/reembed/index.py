"""The native vector index during a re-embedding.

One vector index serves every namespace of a database, sized for one
dimension. A re-embedding that changes the dimension drops it before the first
batch and rebuilds it after the last (:mod:`mragent.apps.reembed.rewrite`); this
module holds those steps and the refusal to rebuild it while another namespace
needs the old size.
"""

from __future__ import annotations

import re
import time

import numpy as np

from mragent.core.embedding import Embedder, EmbedderIdentity
from mragent.core.errors import EmbeddingMismatch, MragentError, QueryError
from mragent.core.store.base import GraphStore

INDEX_WAIT_SECONDS = 600.0
# Dropping an index that is already gone is the goal state, whatever the engine calls it.
_ABSENT_INDEX = re.compile(r"no such index|does not exist|doesn't exist|not found", re.I)
# A rebuilt index that answers "wrong dimension" will not get better by waiting.
_WRONG_DIMENSION = re.compile(r"dimension", re.I)


def dimension_of(identity_text: str) -> int:
    """The dimension an embedder identity text names."""
    try:
        return EmbedderIdentity.from_text(identity_text).dimension
    except ValueError:
        raise MragentError(f"unreadable embedder stamp {identity_text!r}") from None


def refuse_other_dimensions(store: GraphStore, ns: str, target: EmbedderIdentity) -> None:
    """Refuse to rebuild the shared vector index while another namespace needs another size.

    A namespace that is itself being re-embedded counts with its target's dimension.
    """
    blocking = []
    for row in store.run("reembed_others", {"ns": ns}):
        stamp = row["migrating_to"] or row["embedder"]
        if stamp is None:
            continue  # a MemorySpace without vectors (settings only)
        if dimension_of(stamp) != target.dimension:
            blocking.append(f"{row['ns']!r} ({stamp})")
    if blocking:
        raise EmbeddingMismatch(
            f"refusing to re-embed namespace {ns!r} to {target.as_text()}: the database's "
            f"vector index is shared, and these namespaces use another dimension: "
            f"{', '.join(blocking)}; re-embed them to dimension {target.dimension} first, "
            "or keep this namespace's dimension"
        )


def drop_vector_index(store: GraphStore) -> None:
    # A schema file like schema_vector; the store's schema path is the one door for it.
    try:
        store.drop_vector_index()
    except QueryError as exc:
        if not _ABSENT_INDEX.search(str(exc)):
            raise
    store.forget_schema()


def rebuild_vector_index(store: GraphStore, dimension: int) -> None:
    """Drop the vector index (a writer may have recreated it for the old dimension
    meanwhile) and create it for ``dimension``."""
    drop_vector_index(store)
    store.ensure_schema(dimension)  # ids and full-text too, as on any write path


def await_vector_index(store: GraphStore, ns: str, embedder: Embedder) -> None:
    """Wait until the native vector index answers a query of the target dimension.

    Neo4j blocks a query until a populating index is online; FalkorDB answers an
    error while its index is under construction, so it is polled.
    """
    probe = np.zeros(embedder.identity.dimension, dtype=np.float32)
    probe[0] = 1.0
    deadline = time.monotonic() + INDEX_WAIT_SECONDS
    while True:
        try:
            store.run("reembed_probe", {"ns": ns, "embedding": probe.tolist()})
            return
        except QueryError as exc:
            hopeless = _WRONG_DIMENSION.search(str(exc)) or _ABSENT_INDEX.search(str(exc))
            if hopeless or time.monotonic() > deadline:
                raise MragentError(
                    f"the vector index does not answer for dimension "
                    f"{embedder.identity.dimension} after re-embedding {ns!r}: {exc}"
                ) from None
            time.sleep(0.2)
