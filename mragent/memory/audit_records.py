"""The audit log's records: their format and keyed hash chain, reading a log and verifying it.

The write side, :class:`~mragent.memory.audit.AuditLog`, appends these records;
this module defines what a record is and checks a log end to end.

A record's ``hash`` is an HMAC-SHA256, keyed with the log's secret key (a file
beside the log, ``<log>.key``, mode 0600, outside the database): whoever can
edit the log or the database but cannot read the key cannot make an edited
record, or a re-hashed log, verify.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from mragent.core.errors import MragentError
from mragent.memory.keyfile import HEX64, load_key, make_key

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


def key_path(log: Path | str) -> Path:
    """Where the secret key of the log at ``log`` is kept."""
    log = Path(log)
    return log.with_name(log.name + ".key")


def read_key(log: Path | str, *, create: bool = False) -> bytes:
    """The log's secret key (32 random bytes, hex in a 0600 file beside the log).

    Args:
        log: The log file.
        create: Make the key if there is none (the first append does).

    Raises:
        AuditError: when there is no key and ``create`` is false or the log already
            holds records (a new key could check none of them, and would let whoever
            deleted the key re-seal the chain), or when the key is malformed.
    """
    path = key_path(log)
    if create and not path.exists():
        if _holds_records(Path(log)):
            raise AuditError(
                log, None, f"audit key {path} is missing while the log holds records: restore it"
            )
        make_key(path)
    try:
        return load_key(path)
    except FileNotFoundError:
        raise AuditError(
            log, None, f"audit key {path} is missing: the log cannot be checked"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise AuditError(log, None, f"audit key {path} cannot be read: {exc}") from None
    except ValueError:
        raise AuditError(log, None, f"audit key {path} is not 64 hex digits") from None


def _holds_records(log: Path) -> bool:
    try:
        return log.stat().st_size > 0
    except FileNotFoundError:
        return False


def record_hash(fields: Mapping[str, Any], key: bytes) -> str:
    """HMAC-SHA256 (hex), keyed with ``key``, of a record's canonical JSON without ``hash``."""
    body = {name: value for name, value in fields.items() if name != "hash"}
    return hmac.new(key, canonical_json(body).encode("utf-8"), hashlib.sha256).hexdigest()


SEALED = ("id", "key", "hash", "principal", "lineage", "recorded_at")


def seal_of(key: bytes, ns: str, scope: str, content: Mapping[str, Any]) -> str:
    """HMAC-SHA256 (hex) over a version's fixed fields and its trust state at write.

    Args:
        key: The audit log's key.
        ns, scope: Where the version lives.
        content: Its stored fields (at least :data:`SEALED` and ``trust``).
    """
    fields: list[Any] = [ns, scope, *(content[name] for name in SEALED), content["trust"]]
    # FalkorDB returns doubles to 15 significant digits; the seal must read back the same.
    fields[2 + SEALED.index("recorded_at")] = format(float(content["recorded_at"]), ".15g")
    return hmac.new(key, canonical_json(fields).encode("utf-8"), hashlib.sha256).hexdigest()


def anchor_mac(key: bytes, ns: str, seq: int, head: str) -> str:
    """HMAC-SHA256 (hex) of a namespace's anchor, kept beside it in the database.

    Whoever can write the database but not read the key can neither set an anchor
    nor move one to an earlier record of the log (the hashes are in the log for all
    to read, this mark is not), so a cut tail cannot be hidden by moving the anchor
    back with it.
    """
    body = canonical_json(["anchor", ns, int(seq), head])
    return hmac.new(key, body.encode("utf-8"), hashlib.sha256).hexdigest()


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
        lost: One line per audited write the database does not hold although
            nothing was tampered with: the database is behind the log (writes
            lost in a crash, or a restore from an older copy).
        warnings: Records that are intact but not anchored (see :func:`verify`).
        head: (seq, hash) of the last parsable record, None for an empty log.
        last_by_ns: (seq, hash) of the last record of each namespace.
        memories: Stored versions checked against the log (``verify_store``).
        by_seq: The parsable records by seq.
    """

    records: int = 0
    problems: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    head: tuple[int, str] | None = None
    last_by_ns: dict[str, tuple[int, str]] = field(default_factory=dict)
    memories: int = 0
    by_seq: dict[int, AuditRecord] = field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        """True when nothing was tampered with or lost (warnings do not count)."""
        return not self.problems and not self.lost

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready summary, for ``audit verify --json``."""
        return {
            "ok": self.ok,
            "records": self.records,
            "problems": list(self.problems),
            "lost": list(self.lost),
            "warnings": list(self.warnings),
            "head": list(self.head) if self.head else None,
            "memories": self.memories,
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


def parse_line(raw: bytes, key: bytes) -> tuple[AuditRecord | None, str | None]:
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
    if not hmac.compare_digest(record_hash(obj, key), record.hash):
        return record, f"seq {record.seq}: hash mismatch: the record was edited or re-hashed"
    return record, None


def check_log_path(path: Path) -> Path:
    """``path`` if it can be an audit log: missing (made on first write) or a regular file.

    Raises:
        AuditError: for a directory, a FIFO or another file that is not regular.
    """
    if path.exists() and not path.is_file():
        raise AuditError(path, None, "the audit log must be a regular file, not a directory")
    return path


def read_records(path: Path | str) -> list[AuditRecord]:
    """Every record of a log, in order (for ``audit show``); [] when the file is missing.

    Raises:
        AuditError: at the first line that is not a valid record, or when the
            log's key is missing.
    """
    path = check_log_path(Path(path))
    records = []
    try:
        with open(path, "rb") as handle:
            key = read_key(path)
            for number, raw in enumerate(handle, start=1):
                record, reason = parse_line(raw, key)
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
        try:
            key = read_key(path)
        except AuditError as exc:
            report.problems.append(str(exc))
            return report
        by_seq = _check_chain(handle, report, key)
    report.by_seq = by_seq
    _check_anchors(report, by_seq, anchors)
    return report


def _check_chain(lines: Iterable[bytes], report: AuditReport, key: bytes) -> dict[int, AuditRecord]:
    """Parse each line and check its ``seq`` and ``prev`` link into ``report``.

    Returns:
        The parsable records by seq.
    """
    by_seq: dict[int, AuditRecord] = {}
    prev_hash: str | None = GENESIS  # None: the line before was unreadable
    prev_seq = 0
    for number, raw in enumerate(lines, start=1):
        report.records = number
        record, reason = parse_line(raw, key)
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
        after = [
            s
            for s, r in sorted(by_seq.items())
            if s > seq and r.ns == ns and r.action != "abort" and s not in aborted
        ]
        # Each write moves the anchor, so a crash leaves at most one record past it.
        # More: the database lost writes it had acknowledged (a crash without fsync,
        # or a restore from an older copy). An anchor moved back without the key is
        # reported on its own (its key mark, audit_check).
        if len(after) > 1:
            report.lost.append(
                f"anchor of ns {ns!r}: {len(after)} records (seq {after[0]}..{after[-1]}) are "
                f"after its anchor (seq {seq}): the database is behind the log (its last "
                "writes were lost, or it was restored from an older copy)"
            )
        for later in after[:1]:
            report.warnings.append(
                f"ns {ns!r}: seq {later} ({by_seq[later].action}) is after the anchor "
                f"(seq {seq}) and not aborted: its database write may not have happened"
            )
