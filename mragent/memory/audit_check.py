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
  restored it (the reject of an agent's forget);
* each anchor carries its HMAC with the log's key, so it cannot be set, or moved
  back to an earlier record, through the database alone; records past a keyed
  anchor mean the **database is behind the log** (writes lost in a crash, or the
  database restored from an older copy), which is told apart from tampering;
* the other way round, from the log to the database: every version an audited
  ``remember`` or ``correct`` wrote is still in its namespace, with its text hash
  and scope (a version deleted, or moved to another namespace, is missing); every
  ingest's scope holds at least the contents that ingest wrote; every version is
  accounted for by a record (its own ``remember``/``correct``, or an ingest by
  the same writer into the same scope, or an import); and, checking every
  namespace, no memory lies in a namespace the log has no anchor for.
"""

from __future__ import annotations

import hmac
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from mragent.core.store.base import GraphStore
from mragent.memory.audit import AuditLog
from mragent.memory.audit_records import (
    AuditError,
    AuditRecord,
    AuditReport,
    anchor_mac,
    read_key,
    seal_of,
)
from mragent.memory.ingest_source import text_hash
from mragent.memory.space import STAGING_PREFIX

PAGE = 1000
TRUST_STATES = ("accepted", "pending", "rejected")


@dataclass(frozen=True)
class _Write:
    """A version an audited remember or correct wrote."""

    seq: int
    after: str
    scope: str | None


@dataclass
class _Audited:
    """What the log says happened to one namespace's versions."""

    written: dict[str, _Write] = field(default_factory=dict)  # id -> its audited write
    reviews: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    forgotten: dict[str, int] = field(default_factory=dict)  # lineage -> seq
    # (principal, scope) -> the largest ingest by that writer into that scope
    ingested: dict[tuple[str, str], int] = field(default_factory=dict)
    imported: bool = False


@dataclass
class _Seen:
    """What the database holds of one namespace, as far as the checks above need."""

    scopes: dict[str, str] = field(default_factory=dict)  # id -> its scope
    by_ingest: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))


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
    rows = [row for row in store.run("namespaces", {}) if not namespaces or row["ns"] in namespaces]
    anchors = {
        row["ns"]: (int(row["audit_seq"]), row["audit_head"])
        for row in rows
        if row["audit_seq"] is not None
    }
    report = log.verify(anchors)
    try:
        key = read_key(log.path)
    except AuditError:
        return report  # the chain check has reported the missing key
    for row in rows:
        if row["audit_seq"] is None or _keyed(key, row):
            continue
        moved = "it was set or moved in the database without the audit key"
        why = (
            f"its key mark does not match: {moved}"
            if row.get("audit_mac")
            else f"it carries no key mark: {moved}, or an mragent from before anchors were "
            "keyed wrote it (the namespace's next write re-keys it)"
        )
        report.problems.append(f"anchor of ns {row['ns']!r}: {why}")
    audited = _audited(report.by_seq.values())
    for ns in sorted(anchors):
        seen = _Seen()
        for version in _versions(store, ns):
            report.memories += 1
            problem = _version_problem(key, ns, version, audited[ns], seen)
            if problem:
                report.problems.append(f"ns {ns!r}: memory {version['id']}: {problem}")
        for lost, problem in _missing(ns, audited[ns], seen, anchors[ns][0]):
            (report.lost if lost else report.problems).append(problem)
    report.problems.extend(_unaudited_namespaces(store, report, audited, anchors, namespaces))
    return report


def _keyed(key: bytes, row: dict[str, Any]) -> bool:
    """Whether a MemorySpace row's anchor carries its mark with this log's key."""
    expected = anchor_mac(key, row["ns"], int(row["audit_seq"]), str(row["audit_head"]))
    return hmac.compare_digest(expected, str(row.get("audit_mac") or ""))


def _missing(ns: str, audited: _Audited, seen: _Seen, anchor: int) -> Iterator[tuple[bool, str]]:
    """The log's writes the database does not hold (from the log to the database),
    each with whether it is a lost write (past the anchor) rather than an edit."""
    for mid, write in sorted(audited.written.items(), key=lambda item: item[1].seq):
        found = seen.scopes.get(mid)
        if found is None and write.seq > anchor:
            yield (
                True,
                (
                    f"ns {ns!r}: memory {mid} (audit seq {write.seq}, past the anchor) is not in "
                    "the database: its write was cut short before it got there, or the database "
                    "lost it (a crash without fsync, a restore from an older copy)"
                ),
            )
        elif found is None:
            yield (
                False,
                (
                    f"ns {ns!r}: memory {mid} (audit seq {write.seq}) is not in the namespace: "
                    "deleted or moved to another namespace in the database, or lost with the "
                    "database's last writes"
                ),
            )
        elif write.scope is not None and found != write.scope:
            yield (
                False,
                (
                    f"ns {ns!r}: memory {mid} is in scope {found!r}, but audit seq "
                    f"{write.seq} wrote it to {write.scope!r}"
                ),
            )
    for (principal, scope), contents in sorted(audited.ingested.items()):
        held = seen.by_ingest.get((principal, scope), 0)
        if held < contents:
            yield (
                False,
                (
                    f"ns {ns!r}: scope {scope!r} holds {held} of the {contents} contents "
                    f"{principal} ingested: memories were deleted or moved in the database"
                ),
            )


def _unaudited_namespaces(
    store: GraphStore,
    report: AuditReport,
    audited: dict[str, _Audited],
    anchors: dict[str, tuple[int, str]],
    namespaces: Sequence[str] | None,
) -> Iterator[str]:
    """Namespaces the log wrote that the database lost, and memories in namespaces
    the log never wrote (only when every namespace is checked)."""
    if namespaces:
        return
    held = {row["ns"]: int(row["contents"]) for row in store.run("content_namespaces", {})}
    for ns, count in sorted(held.items()):
        if ns not in anchors and not ns.startswith(STAGING_PREFIX):
            yield (
                f"ns {ns!r}: {count} memories in a namespace the audit log has no anchor "
                "for: written or moved there through the database"
            )
        elif ns.startswith(STAGING_PREFIX):
            report.warnings.append(
                f"ns {ns!r}: {count} memories staged by an import that did not finish"
            )
    for ns in sorted(set(audited) - set(anchors)):
        if audited[ns].written or audited[ns].ingested:
            yield (
                f"ns {ns!r}: the audit log records writes to it, but the database has no "
                "such namespace"
            )


def _audited(records: Iterator[AuditRecord] | Any) -> dict[str, _Audited]:
    """Per namespace: written hashes, review outcomes and forgotten lineages, in log order."""
    ordered = sorted(records, key=lambda r: r.seq)
    aborted = {int(r.target) for r in ordered if r.action == "abort" and r.target.isdigit()}
    out: dict[str, _Audited] = defaultdict(_Audited)
    for record in ordered:
        if record.seq in aborted or record.action == "abort":
            continue
        seen = out[record.ns]
        detail = record.detail or {}
        if record.action in ("remember", "correct") and record.after:
            seen.written[record.target] = _Write(record.seq, record.after, detail.get("scope"))
        elif record.action == "ingest":
            group = (record.principal, str(detail.get("scope")))
            seen.ingested[group] = max(seen.ingested.get(group, 0), int(detail.get("contents", 0)))
        elif record.action == "import":
            seen.imported = True
            if detail.get("mode") == "replace":  # the namespace's memories were deleted
                seen.written.clear()
                seen.ingested.clear()
        elif record.action in ("accept", "reject"):
            verdict = detail.get("forget")
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


def _version_problem(
    key: bytes, ns: str, version: dict[str, Any], audited: _Audited, seen: _Seen
) -> str | None:
    """What is wrong with one stored version, or None; notes it in ``seen``."""
    seen.scopes[version["id"]] = version["scope"]
    if not version.get("seal"):
        return "carries no seal: not written by this mragent (or its seal was removed)"
    written = _written_trust(key, ns, version)
    if written is None:
        return "its seal does not match: its id, key, text hash, writer, lineage or time was edited"
    if version["text"] is not None and text_hash(version["text"]) != version["hash"]:
        return "its text does not match its hash: the text was edited in the database"
    if version["text"] is None and version["forgotten_at"] is None:
        return "its text is gone but it was never forgotten"
    write = audited.written.get(version["id"])
    if write is not None and write.after != version["hash"]:
        return "its text hash differs from the one its audited write recorded"
    if write is None:
        # remember and correct give a version its key as id; ingest a random id of its own
        group = (version["principal"], version["scope"])
        if version["id"] != version["key"] and group in audited.ingested:
            seen.by_ingest[group] += 1
        elif not audited.imported:
            return "no audit record wrote it (its record was cut from the log?)"
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
