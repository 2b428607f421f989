"""Tie one database write to one audit record and the namespace's anchor."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mragent.core.store.base import GraphStore
from mragent.memory.audit import AuditLog
from mragent.memory.audit_records import AuditError, anchor_mac
from mragent.memory.principal import Principal


@contextmanager
def audited(
    store: GraphStore,
    audit: AuditLog,
    ns: str,
    principal: Principal,
    action: str,
    target: str,
    before: str | None,
    after: str | None,
    detail: dict[str, Any] | None = None,
) -> Iterator[None]:
    """Append the audit record, run the write (the ``with`` body), move the anchor.

    The record is on disk before the write starts (write-ahead: the log never
    misses a change that happened; a failed write is followed by an ``abort``
    record) and the log stays locked until the namespace's anchor moves, so
    concurrent writers are ordered the same way in the log and the database.
    """
    with audit.entry(
        ns=ns,
        principal=str(principal),
        action=action,
        target=target,
        before=before,
        after=after,
        detail=detail,
    ) as record:
        yield
        mac = anchor_mac(audit.key(), ns, record.seq, record.hash)
        anchor = {"ns": ns, "seq": record.seq, "head": record.hash, "mac": mac}
        rows = store.run("audit_anchor", anchor)
        # The anchor only moves forward: one ahead of this record means the database
        # was written through another (or a replaced) log.
        if rows and rows[0]["seq"] != record.seq:
            raise AuditError(
                audit.path,
                None,
                f"namespace {ns!r} is anchored at audit record {rows[0]['seq']}, past this "
                f"log's record {record.seq}: the database is audited by another log, or "
                "this one was replaced",
            )
