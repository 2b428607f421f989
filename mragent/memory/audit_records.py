"""The audit log's records: their format and hash chain, reading a log and verifying it.

The write side, :class:`~mragent.memory.audit.AuditLog`, appends these records;
this module defines what a record is and checks a log end to end.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from mragent.core.errors import MragentError

ACTIONS = frozenset(
    {
        "remember",
        "correct",
        "forget",
        "purge",
        "accept",
        "reject",
        "trust",
        "import",
        "ingest",
        "migrate",
        "reembed",
        "abort",
    }
)
GENESIS = "0" * 64
FIELDS = (
    "seq",
    "time",
    "ns",
    "principal",
    "action",
    "target",
    "before",
    "after",
    "detail",
    "prev",
    "hash",
)
HEX64 = re.compile(r"^[0-9a-f]{64}$")


class AuditError(MragentError):
    """The audit log is damaged or a record is invalid.

    Attributes:
        path: The log file.
        line: The 1-based line at fault, if known.
    """

    def __init__(self, path: Path | str, line: int | None, message: str) -> None:
        where = f"{path}: line {line}" if line is not None else str(path)
        super().__init__(f"{where}: {message}")
        self.path = str(path)
        self.line = line


def canonical_json(obj: Any) -> str:
    """The one serialisation hashed and written: sorted keys, no spaces, UTF-8 text.

    NaN and infinities are refused: they are not JSON and would not read back.
    """
    return json.dumps(
        obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def record_hash(fields: Mapping[str, Any]) -> str:
    """sha256 hex of the canonical JSON of a record without its ``hash`` field."""
    body = {key: value for key, value in fields.items() if key != "hash"}
    return hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class AuditRecord:
    """One line of the audit log."""

    seq: int
    time: str
    ns: str
    principal: str
    action: str
    target: str
    before: str | None
    after: str | None
    detail: dict[str, Any] | None
    prev: str
    hash: str

    def as_dict(self) -> dict[str, Any]:
        """The record as a plain dict (the JSON object written to the log)."""
        return asdict(self)

    def line(self) -> bytes:
        """The record's exact bytes in the log, newline included."""
        return (canonical_json(self.as_dict()) + "\n").encode("utf-8")


@dataclass
class AuditReport:
    """What :func:`verify` found.

    Attributes:
        records: Lines read (parsable or not).
        problems: One line per tampering or damage found, naming the line.
        warnings: Records that are intact but not anchored (see :func:`verify`).
        head: (seq, hash) of the last parsable record, None for an empty log.
        last_by_ns: (seq, hash) of the last record of each namespace.
    """

    records: int = 0
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    head: tuple[int, str] | None = None
    last_by_ns: dict[str, tuple[int, str]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when no problem was found (warnings do not count)."""
        return not self.problems

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready summary, for ``audit verify --json``."""
        return {
            "ok": self.ok,
            "records": self.records,
            "problems": list(self.problems),
            "warnings": list(self.warnings),
            "head": list(self.head) if self.head else None,
            "last_by_ns": {ns: list(pair) for ns, pair in sorted(self.last_by_ns.items())},
        }


def _field_errors(obj: Any) -> list[str]:
    """Shape errors of a parsed line (types, not the chain)."""
    if not isinstance(obj, dict):
        return ["not a JSON object"]
    keys = set(obj)
    if keys != set(FIELDS):
        missing, extra = sorted(set(FIELDS) - keys), sorted(keys - set(FIELDS))
        return [f"fields missing {missing}, unexpected {extra}"]
    errors = []
    # bool is an int subclass; a seq of true is a forgery, not record 1.
    if type(obj["seq"]) is not int or obj["seq"] < 1:
        errors.append(f"bad seq {obj['seq']!r}")
    for key in ("time", "ns", "principal", "target"):
        if not isinstance(obj[key], str) or not obj[key]:
            errors.append(f"bad {key} {obj[key]!r}")
    if isinstance(obj["time"], str):
        try:
            datetime.fromisoformat(obj["time"])
        except ValueError:
            errors.append(f"bad time {obj['time']!r}")
    if obj["action"] not in ACTIONS:
        errors.append(f"unknown action {obj['action']!r}")
    for key in ("before", "after"):
        if obj[key] is not None and not (isinstance(obj[key], str) and HEX64.match(obj[key])):
            errors.append(f"bad {key} {obj[key]!r}")
    if obj["detail"] is not None and not isinstance(obj["detail"], dict):
        errors.append(f"bad detail {obj['detail']!r}")
    for key in ("prev", "hash"):
        if not (isinstance(obj[key], str) and HEX64.match(obj[key])):
            errors.append(f"bad {key} {obj[key]!r}")
    return errors


def parse_line(raw: bytes) -> tuple[AuditRecord | None, str | None]:
    """(record, None) for a well-formed record whose hash checks, else (None, reason).

    A record with a wrong hash is returned *with* the reason, so the chain check
    can still follow its ``prev`` link.
    """
    if not raw.endswith(b"\n"):
        return None, "torn: the last line has no newline (a write was interrupted?)"
    text = raw[:-1]
    if not text.strip():
        return None, "empty line"
    try:
        obj = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return None, f"unparsable ({exc.__class__.__name__}): torn or edited"
    errors = _field_errors(obj)
    if errors:
        return None, "; ".join(errors)
    record = AuditRecord(**obj)
    if record_hash(obj) != record.hash:
        return record, f"seq {record.seq}: hash mismatch: the record was edited"
    return record, None


def read_records(path: Path | str) -> list[AuditRecord]:
    """Every record of a log, in order (for ``audit show``); [] when the file is missing.

    Raises:
        AuditError: at the first line that is not a valid record.
    """
    path = Path(path)
    records = []
    try:
        with open(path, "rb") as handle:
            for number, raw in enumerate(handle, start=1):
                record, reason = parse_line(raw)
                if reason is not None or record is None:
                    raise AuditError(path, number, reason or "invalid record")
                records.append(record)
    except FileNotFoundError:
        return []
    return records


def verify(path: Path | str, anchors: Mapping[str, tuple[int, str]] | None = None) -> AuditReport:
    """Check every record's hash, ``prev`` link and ``seq``, then the anchors.

    Problems name the line: an edited record (hash mismatch), a deleted, inserted
    or reordered one (seq gap or step back, broken ``prev``), a torn or
    unparsable line. Deleting the *last* records leaves a valid chain; only the
    anchors catch that.

    Args:
        path: The log file. Missing means empty: valid without anchors, a problem
            ("log missing") with any.
        anchors: ns -> (audit_seq, audit_head) from each namespace's MemorySpace.
            The anchored record must be in the log with that hash and ns, which
            detects a cut tail and a log rebuilt with fresh hashes.

    Returns:
        The report. A record of an anchored namespace that comes after its
        anchor, is not an ``abort`` and was not aborted, is a *warning*, not a
        problem: it is what a crash between the audit write and the database
        write leaves, and it is also where records appended by someone who can
        write the file would show.
    """
    path = Path(path)
    report = AuditReport()
    anchors = dict(anchors or {})
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        if anchors:
            report.problems.append(
                f"{path}: log missing, but {len(anchors)} namespace(s) have an audit anchor"
            )
        return report
    with handle:
        by_seq = _check_chain(handle, report)
    _check_anchors(report, by_seq, anchors)
    return report


def _check_chain(lines: Iterable[bytes], report: AuditReport) -> dict[int, AuditRecord]:
    """Parse each line and check its ``seq`` and ``prev`` link into ``report``.

    Returns:
        The parsable records by seq.
    """
    by_seq: dict[int, AuditRecord] = {}
    prev_hash: str | None = GENESIS  # None: the line before was unreadable
    prev_seq = 0
    for number, raw in enumerate(lines, start=1):
        report.records = number
        record, reason = parse_line(raw)
        if reason is not None:
            report.problems.append(f"line {number}: {reason}")
        if record is None:
            prev_hash = None
            continue
        if record.seq != prev_seq + 1:
            if record.seq > prev_seq + 1:
                what = f"seq jumps from {prev_seq} to {record.seq}: record(s) deleted"
            else:
                what = f"seq {record.seq} after {prev_seq}: reordered or duplicated"
            report.problems.append(f"line {number}: {what}")
        if prev_hash is not None and record.prev != prev_hash:
            report.problems.append(
                f"line {number}: seq {record.seq}: prev does not match the record before "
                "(deleted, inserted or reordered)"
            )
        prev_hash, prev_seq = record.hash, record.seq
        by_seq[record.seq] = record
        report.head = (record.seq, record.hash)
        report.last_by_ns[record.ns] = (record.seq, record.hash)
    return by_seq


def _check_anchors(
    report: AuditReport, by_seq: dict[int, AuditRecord], anchors: dict[str, tuple[int, str]]
) -> None:
    aborted = {int(r.target) for r in by_seq.values() if r.action == "abort" and r.target.isdigit()}
    for ns, (seq, digest) in sorted(anchors.items()):
        found = by_seq.get(seq)
        if found is None:
            report.problems.append(
                f"anchor of ns {ns!r}: record seq {seq} is not in the log (tail deleted?)"
            )
            continue
        if found.hash != digest or found.ns != ns:
            report.problems.append(
                f"anchor of ns {ns!r}: record seq {seq} differs from the anchor (log rewritten?)"
            )
            continue
        for later in sorted(s for s, r in by_seq.items() if s > seq and r.ns == ns):
            record = by_seq[later]
            if record.action != "abort" and later not in aborted:
                report.warnings.append(
                    f"ns {ns!r}: seq {later} ({record.action}) is after the anchor "
                    f"(seq {seq}) and not aborted: its database write may not have happened"
                )
