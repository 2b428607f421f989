"""A namespace's settings node (``MemorySpace``) and the checks every reader and writer runs.

The node records the embedder identity, the store schema the namespace was
written in, a re-embedding under way, the trusted agents and the audit anchor.
"""

from __future__ import annotations

from typing import Any

from mragent.core.embedding import EmbedderIdentity, check_identity
from mragent.core.errors import LegacyNamespace, MigrationInProgress

# Bumped when stored memories gain properties every query relies on; a namespace
# written in an earlier schema is refused until ``mragent migrate`` upgrades it.
# 2: provenance (scope, principal, trust and its log, record and valid time, hash).
# 3: the namespace version and identity (MemorySpace version, uid; v on cues and
#    contents) and REFERENCES ranks over the edges each kind of read view can use.
STORE_SCHEMA = "3"


def check_space(namespace: str, space: dict[str, Any] | None, mine: EmbedderIdentity) -> None:
    """Refuse to read or write a namespace (a ``get_space`` row) written in an older
    store schema, in another embedding space than ``mine``, or while ``mragent
    reembed`` is migrating it. ``None`` (a new namespace) passes.

    Raises:
        LegacyNamespace: for a namespace written in an earlier store schema.
        MigrationInProgress: during a re-embedding.
        EmbeddingMismatch: naming both identities.
    """
    if not space:
        return
    if space.get("schema") != STORE_SCHEMA:
        raise LegacyNamespace(
            f"namespace {namespace!r} was written by an earlier mragent (store schema "
            f"{space.get('schema') or 1}, now {STORE_SCHEMA}); run "
            f"'mragent migrate --ns {namespace} --principal human:NAME' once"
        )
    if space.get("migrating_to"):
        raise MigrationInProgress(namespace, space.get("embedder"), str(space["migrating_to"]))
    check_identity(namespace, space.get("embedder"), mine)
