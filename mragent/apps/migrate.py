"""Upgrade a namespace written by an earlier mragent to the current store schema.

Namespaces written before provenance existed have no scope on their nodes and no
writer, trust state, record time, lineage or hash on their contents; every read
query filters on those, so such a namespace is refused (``LegacyNamespace``)
until it is migrated. The migration fills only what is missing (a re-run changes
nothing), vouches for the legacy contents as accepted memories of the principal
who runs it, and is one audit record. Namespaces written before versions existed
(store schema 2) gain them too: their cues and contents are stamped with the
namespace's version, their REFERENCES edges get the view ranks, and the
namespace an identity.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from mragent.core.corpus import validate_namespace
from mragent.core.errors import MragentError, WriteRefused
from mragent.core.store.base import GraphStore
from mragent.core.view import DEFAULT_SCOPE, validate_scope
from mragent.memory.audit import AuditLog
from mragent.memory.audited import audited
from mragent.memory.ingest import new_id, text_hash
from mragent.memory.principal import Principal
from mragent.memory.ranks import rank_namespace
from mragent.memory.space import STORE_SCHEMA

HASH_BATCH = 500


@dataclass(frozen=True)
class MigrationReport:
    """What a migration changed."""

    namespace: str
    cues: int
    tags: int
    contents: int
    hashed: int
    changed: bool


def migrate_namespace(
    store: GraphStore,
    ns: str,
    *,
    principal: Principal,
    audit: AuditLog,
    scope: str = DEFAULT_SCOPE,
) -> MigrationReport:
    """Bring ``ns`` to :data:`~mragent.memory.space.STORE_SCHEMA`.

    Raises:
        MragentError: when the namespace holds no memories.
        WriteRefused: for an agent (the migration vouches for what it finds).
        AccessDenied: for a scope outside the principal's write grants.
    """
    validate_namespace(ns)
    validate_scope(scope)
    if principal.is_agent:
        raise WriteRefused(
            f"migrate vouches for the legacy contents as accepted memories; it needs a "
            f"human or system principal, not {principal}"
        )
    principal.check_write(scope)
    rows = store.run("get_space", {"ns": ns})
    if not rows:
        raise MragentError(f"namespace {ns!r} holds no memories: nothing to migrate")
    if rows[0]["schema"] == STORE_SCHEMA:
        return MigrationReport(ns, 0, 0, 0, 0, changed=False)
    detail = {"from_schema": rows[0]["schema"] or "1", "to_schema": STORE_SCHEMA, "scope": scope}
    with audited(store, audit, ns, principal, "migrate", ns, None, None, detail):
        params = {"ns": ns, "scope": scope, "principal": str(principal), "at": time.time()}
        counts = store.run("migrate_provenance", params)[0]
        hashed = 0
        while batch := store.run("migrate_unhashed", {"ns": ns, "limit": HASH_BATCH}):
            hashes = [{"id": row["id"], "hash": text_hash(row["text"])} for row in batch]
            hashed += int(store.run("migrate_hashes", {"ns": ns, "rows": hashes})[0]["hashed"])
        store.run("migrate_versions", {"ns": ns})
        rank_namespace(store, ns)
        # Last: until the schema mark is set, readers keep refusing the namespace.
        store.run("space_schema", {"ns": ns, "schema": STORE_SCHEMA, "uid": new_id()})
    return MigrationReport(
        ns, int(counts["cues"]), int(counts["tags"]), int(counts["contents"]), hashed, True
    )
