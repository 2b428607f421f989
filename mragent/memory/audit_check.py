"""``audit verify`` against the database: the log, the anchors, and every stored version.

The keyed chain (:mod:`mragent.memory.audit_records`) shows that the log itself
is what this mragent wrote. This module checks the database against it, so an
edit made through the database alone is found too:

* each namespace's anchor names a record of the log, and at most one record
  (a crash between the audit write and the database write) is past it;
* every version carries a **seal** (an HMAC with the log's key over its id, key,
  text hash, principal, lineage, record time and the trust state it was
  written in) that matches, and its text matches its hash (text edited in the
  database), and the hash matches the ``after`` of the ``remember`` or
  ``correct`` record that wrote it;
* its trust state is the written one changed only by audited reviews (a reject
  may also have returned it from accepted to pending: the cascade);
* a memory the log says was forgotten is still forgotten, unless a human
  restored it (the reject of an agent's forget).
"""

from __future__ import annotations

import hmac
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from mragent.core.store.base import GraphStore
from mragent.memory.audit import AuditLog
from mragent.memory.audit_records import AuditError, AuditRecord, AuditReport, read_key, seal_of
from mragent.memory.ingest_source import text_hash

PAGE = 1000
TRUST_STATES = ("accepted", "pending", "rejected")


@dataclass
class _Audited:
    """What the log says happened to one namespace's versions."""

    after: dict[str, str] = field(default_factory=dict)  # id -> text hash written
    reviews: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    forgotten: dict[str, int] = field(default_factory=dict)  # lineage -> seq


def verify_store(
    store: GraphStore, log: AuditLog, namespaces: Sequence[str] | None = None
) -> AuditReport:
    """Verify the log, the anchors and the stored versions of every anchored namespace.

    Args:
        store: The database the log audits.
        log: The audit log.
        namespaces: Check only these (default: every namespace with an anchor).

    Returns:
        The report; ``report.ok`` is false when anything was found.
    """
    rows = store.run("namespaces", {})
    anchors = {
        row["ns"]: (int(row["audit_seq"]), row["audit_head"])
        for row in rows
        if row["audit_seq"] is not None and (not namespaces or row["ns"] in namespaces)
    }
    report = log.verify(anchors)
    try:
        key = read_key(log.path)
    except AuditError:
        return report  # the chain check has reported the missing key
    audited = _audited(report.by_seq.values())
    for ns in sorted(anchors):
        for version in _versions(store, ns):
            report.memories += 1
            problem = _version_problem(key, ns, version, audited[ns])
            if problem:
                report.problems.append(f"ns {ns!r}: memory {version['id']}: {problem}")
    return report


def _audited(records: Iterator[AuditRecord] | Any) -> dict[str, _Audited]:
    """Per namespace: written hashes, review outcomes and forgotten lineages, in log order."""
    ordered = sorted(records, key=lambda r: r.seq)
    aborted = {int(r.target) for r in ordered if r.action == "abort" and r.target.isdigit()}
    out: dict[str, _Audited] = defaultdict(_Audited)
    for record in ordered:
        if record.seq in aborted or record.action == "abort":
            continue
        seen = out[record.ns]
        if record.action in ("remember", "correct") and record.after:
            seen.after[record.target] = record.after
        elif record.action in ("accept", "reject"):
            verdict = (record.detail or {}).get("forget")
            if verdict == "restored":  # a human undid an agent's forget
                seen.forgotten.pop(record.target, None)
            elif verdict is None:  # a review of the version's trust (not of a forget)
                seen.reviews[record.target].append(
                    "accepted" if record.action == "accept" else "rejected"
                )
        elif record.action in ("forget", "purge"):
            seen.forgotten.setdefault(record.target, record.seq)
    return out


def _versions(store: GraphStore, ns: str) -> Iterator[dict[str, Any]]:
    after = ""
    while rows := store.run("audit_contents", {"ns": ns, "after": after, "limit": PAGE}):
        yield from rows
        after = rows[-1]["id"]


def _version_problem(key: bytes, ns: str, version: dict[str, Any], audited: _Audited) -> str | None:
    """What is wrong with one stored version, or None."""
    if not version.get("seal"):
        return "carries no seal: not written by this mragent (or its seal was removed)"
    written = _written_trust(key, ns, version)
    if written is None:
        return "its seal does not match: its id, key, text hash, writer, lineage or time was edited"
    if version["text"] is not None and text_hash(version["text"]) != version["hash"]:
        return "its text does not match its hash: the text was edited in the database"
    if version["text"] is None and version["forgotten_at"] is None:
        return "its text is gone but it was never forgotten"
    expected = audited.after.get(version["id"])
    if expected is not None and expected != version["hash"]:
        return "its text hash differs from the one its audited write recorded"
    state = written
    for outcome in audited.reviews.get(version["id"], []):
        state = outcome
    cascaded = state == "accepted" and version["trust"] == "pending"
    if version["trust"] != state and not cascaded:
        return f"trust is {version['trust']!r} in the database, but {state!r} by the audit log"
    seq = audited.forgotten.get(version["lineage"])
    if seq is not None and version["forgotten_at"] is None:
        return f"it was forgotten (audit seq {seq}) but is live in the database"
    return None


def _written_trust(key: bytes, ns: str, version: dict[str, Any]) -> str | None:
    """The trust state the version's seal was made with, None when no state fits."""
    for trust in TRUST_STATES:
        expected = seal_of(key, ns, version["scope"], {**version, "trust": trust})
        if hmac.compare_digest(expected, str(version["seal"])):
            return trust
    return None
