"""A namespace's settings node (``MemorySpace``) and the checks every reader and writer runs.

The node records the embedder identity and the spec that builds it, the store
schema the namespace was written in, a re-embedding under way, the trusted
agents and the audit anchor.
"""

from __future__ import annotations

from typing import Any

from mragent.core.embedding import (
    Embedder,
    EmbedderIdentity,
    check_identity,
    default_embedder,
    embedder_from_spec,
)
from mragent.core.errors import LegacyNamespace, ReembedInProgress
from mragent.core.genome import Genome, default_genome
from mragent.core.store.base import GraphStore

# Bumped when stored memories gain properties every query relies on; a namespace
# written in an earlier schema is refused until ``mragent migrate`` upgrades it.
# 2: provenance (scope, principal, trust and its log, record and valid time, hash).
# 3: the namespace version and identity (MemorySpace version, uid; v on cues and
#    contents) and REFERENCES ranks over the edges each kind of read view can use.
STORE_SCHEMA = "3"
STAGING_PREFIX = "~import~"


def staging_namespace(ns: str) -> str:
    """Where an ``import --mode replace`` into ``ns`` is staged: not a valid namespace
    name, so no user namespace can be it, and fixed per target, so an import killed
    midway is cleared by the next one (and by a purge of ``ns``: it may hold a copy
    of the purged text)."""
    return f"{STAGING_PREFIX}{ns}"


def check_space(
    namespace: str, space: dict[str, Any] | None, mine: EmbedderIdentity, action: str = "write"
) -> None:
    """Refuse to read or write a namespace (a ``get_space`` row) written in an older
    store schema, in another embedding space than ``mine``, or while ``mragent
    reembed`` is migrating it. ``None`` (a new namespace) passes.

    Raises:
        LegacyNamespace: for a namespace written in an earlier store schema.
        ReembedInProgress: during a re-embedding.
        EmbeddingMismatch: naming both identities and the ``action`` refused.
    """
    if not space:
        return
    _check_state(namespace, space)
    check_identity(namespace, space.get("embedder"), mine, action)


def _check_state(namespace: str, space: dict[str, Any]) -> None:
    if space.get("schema") != STORE_SCHEMA:
        raise LegacyNamespace(
            f"namespace {namespace!r} was written by an earlier mragent (store schema "
            f"{space.get('schema') or 1}, now {STORE_SCHEMA}); run "
            f"'mragent migrate --ns {namespace} --principal human:NAME' once"
        )
    if space.get("migrating_to"):
        raise ReembedInProgress(
            namespace,
            space.get("embedder"),
            str(space["migrating_to"]),
            space.get("migrating_spec") or None,
        )


def space_embedder(
    namespace: str, space: dict[str, Any] | None, given: Embedder | None, action: str
) -> Embedder:
    """The embedder to ``action`` (read or write) a namespace with, checked against its stamp.

    ``given`` when one is named; otherwise the one the namespace is stamped with
    (its spec, or for a namespace stamped before specs were, its identity text);
    the default embedder for a new namespace. The namespace's state is checked
    before a stamped model is loaded.

    Raises:
        LegacyNamespace, ReembedInProgress: as :func:`check_space`.
        EmbeddingMismatch: when ``given`` is not the namespace's embedder.
        EmbedderUnavailable: when the stamped model's package is not installed.
    """
    if space:
        _check_state(namespace, space)
    embedder = given
    if embedder is None:
        stamped = (space or {}).get("embedder_spec") or (space or {}).get("embedder")
        if stamped:
            embedder = embedder_from_spec(stamped, f"namespace {namespace!r}: its embedder")
        else:
            embedder = default_embedder()
    check_space(namespace, space, embedder.identity, action)
    return embedder


def namespace_genome(store: GraphStore, namespace: str, given: Embedder | None) -> Genome:
    """The genome ``namespace`` is read with when none is named (see
    :func:`~mragent.core.genome.default_genome`)."""
    rows = store.run("get_space", {"ns": namespace})
    embedder = space_embedder(namespace, rows[0] if rows else None, given, "read")
    return default_genome(embedder.identity.lexical)
