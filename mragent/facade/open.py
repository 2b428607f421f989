"""Opening a namespace: authenticate once, open the store, hand back a session."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mragent.core.corpus import validate_namespace
from mragent.core.embedding import Embedder, embedder_from_spec
from mragent.core.errors import ArgumentError, WriteRefused
from mragent.core.genome import Genome, load_genome
from mragent.core.store import open_store
from mragent.core.store.base import GraphStore
from mragent.core.view import DEFAULT_SCOPE
from mragent.facade import arguments as arg
from mragent.facade.review import ReviewSession
from mragent.facade.session import MemorySession
from mragent.memory.audit import AuditLog
from mragent.memory.auth import Standing


def open_memory(
    ns: str = "default",
    *,
    principal: str | None = None,
    token: str | None = None,
    db: str | None = None,
    store: GraphStore | None = None,
    scope: str = DEFAULT_SCOPE,
    read_scopes: Sequence[str] | None = None,
    genome: Genome | str | None = None,
    embedder: Embedder | str | None = None,
    audit_log: Path | str | None = None,
    credentials: Path | str | None = None,
) -> MemorySession:
    """Open a namespace for one principal.

    Args:
        ns: The namespace.
        principal: Who is calling (``human:NAME``, ``agent:NAME``). Without
            credentials configured it is taken as given (and needed to write);
            with credentials it must match the authenticated principal.
        token: An agent's token (default: ``$MRAGENT_TOKEN`` or the key file
            ``$MRAGENT_TOKEN_FILE``).
        db: Database URL (default ``$MRAGENT_DB``, else the embedded FalkorDB; an
            empty ``$MRAGENT_DB`` means the embedded one too).
        store: An open store to use instead (left open by :meth:`close`).
        scope: The scope written to (and read, unless ``read_scopes``).
        read_scopes: The scopes read by default.
        genome: Preset, genome file or :class:`~mragent.core.genome.Genome`.
        embedder: An embedder or its spec; must match the namespace's stamp.
        audit_log: The audit log (default ``$MRAGENT_AUDIT_LOG`` or the home's).
        credentials: The credentials file (default ``$MRAGENT_CREDENTIALS`` or the home's).

    Returns:
        A :class:`ReviewSession` for a human (or the implicit local human: no
        credentials, no principal named), a :class:`MemorySession` otherwise.

    Raises:
        AccessDenied: a failed authentication or a claim other than the proven
            principal (each read and write checks the grants of its scopes).
        ConfigError: a malformed namespace, scope, principal or genome.
    """
    validate_namespace(ns)
    arg.optional_text(principal, "principal")
    arg.optional_text(token, "token")
    arg.one_of(genome, (Genome, str), "genome")
    # Embedder is a protocol: an object without its identity is no embedder.
    if embedder is not None and not isinstance(embedder, str) and not hasattr(embedder, "identity"):
        raise ArgumentError(
            f"embedder must be an Embedder or a spec string, got {type(embedder).__name__}"
        )
    arg.one_of(audit_log, (Path, str), "audit_log")
    arg.one_of(credentials, (Path, str), "credentials")
    standing = Standing(
        principal, token=token, credentials=_path(credentials), required=False,
        option="principal=",
    )  # fmt: skip
    who = standing.principal
    # None: each reader's namespace default (real-model for a namespace a real model stamped).
    chosen = genome if genome is None or isinstance(genome, Genome) else load_genome(genome)
    coder = embedder_from_spec(embedder, "embedder=") if isinstance(embedder, str) else embedder
    # Without credentials and a named principal, the caller is the implicit local
    # human: it reads everything and sees the review queue; a write still needs a name.
    kind = ReviewSession if who is None or who.is_human else MemorySession
    # The same default as the command line's --db (its envvar), so a script and the
    # command it sits beside open the same database.
    opened = store or open_store(db if db is not None else os.environ.get("MRAGENT_DB"))
    try:
        return kind(
            opened, ns, standing, scope=scope, read_scopes=read_scopes, genome=chosen,
            audit=AuditLog(_path(audit_log)), embedder=coder, owns_store=store is None,
        )  # fmt: skip
    except Exception:
        if store is None:
            opened.close()
        raise


def open_review(ns: str = "default", **options: Any) -> ReviewSession:
    """:func:`open_memory` for a human principal; refuses anyone else.

    Raises:
        WriteRefused: when the authenticated principal is not a human.
    """
    session = open_memory(ns, **options)
    if not isinstance(session, ReviewSession):
        session.close()
        raise WriteRefused(f"review needs a human principal, not {session.principal}")
    return session


def _path(value: Path | str | None) -> Path | None:
    return None if value is None else Path(value)
