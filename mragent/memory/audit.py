"""The audit log: an append-only, hash-chained record of every write.

One JSON object per line, outside the graph database (default
``$MRAGENT_HOME/audit.jsonl``), so it is never stored, capped or deleted with
memories. Each record names the principal, the action, the target and the
before/after hashes, and carries ``prev`` (the previous record's hash) and
``hash`` (sha256 of its own canonical JSON without ``hash``). Editing any field
breaks the record's hash; deleting, inserting or reordering records breaks the
``prev`` links and the 1-based ``seq`` numbering.

A hash chain alone cannot show that the *tail* was cut off: a shorter log is
still a valid chain. So each namespace's ``MemorySpace`` node keeps an anchor
(``audit_seq``, ``audit_head``) = its last committed record
(``cypher/audit_anchor.cypher``), and :func:`verify` checks the log against the
anchors.

Writers use the log ahead of the database::

    with log.entry(ns=ns, principal=p, action="forget", target=mid, before=h) as rec:
        ...  # the database write, and the anchor update with rec.seq and rec.hash

The record is on disk (fsync) before the block runs; if the block raises, an
``abort`` record follows it. An exclusive lock is held for the whole block, so
concurrent processes append, write the database and move anchors in one order.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from mragent.core.errors import MragentError
from mragent.core.paths import default_home

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
MAX_DETAIL_BYTES = 4096
MAX_TARGET_CHARS = 1024
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
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_CHUNK = 65536
# Paths whose lock this thread holds: a nested entry() on the same log would
# otherwise wait forever on its own flock.
_held = threading.local()


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


def default_audit_path() -> Path:
    """The default audit log: ``$MRAGENT_AUDIT_LOG``, else ``default_home() / "audit.jsonl"``."""
    override = os.environ.get("MRAGENT_AUDIT_LOG")
    return Path(override).resolve() if override else default_home() / "audit.jsonl"


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
        if obj[key] is not None and not (isinstance(obj[key], str) and _HEX64.match(obj[key])):
            errors.append(f"bad {key} {obj[key]!r}")
    if obj["detail"] is not None and not isinstance(obj["detail"], dict):
        errors.append(f"bad detail {obj['detail']!r}")
    for key in ("prev", "hash"):
        if not (isinstance(obj[key], str) and _HEX64.match(obj[key])):
            errors.append(f"bad {key} {obj[key]!r}")
    return errors


def _parse_line(raw: bytes) -> tuple[AuditRecord | None, str | None]:
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


def _count_lines(path: Path) -> int:
    """Lines in the file, counting an unterminated last line (error path only)."""
    count, last = 0, b"\n"
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            count += chunk.count(b"\n")
            last = chunk[-1:]
    return count + (last != b"\n")


def _tail(handle: Any, size: int) -> list[bytes]:
    """The last two lines of a non-empty file (fewer if it has fewer), newlines kept.

    Reads backwards in chunks so appending stays cheap however long the log is.
    """
    data, pos = b"", size
    # Three newlines bound two whole lines when the file ends with one; a torn
    # tail needs only the partial line, which the caller rejects anyway.
    while pos > 0 and data.count(b"\n") < 3:
        step = min(_CHUNK, pos)
        pos -= step
        handle.seek(pos)
        data = handle.read(step) + data
    lines = _split_keep(data)
    if pos > 0:
        lines = lines[1:]  # the first piece may start mid-line
    return lines[-2:]


def _split_keep(data: bytes) -> list[bytes]:
    """Split on b"\\n" only, keeping it (str.splitlines would also split on U+2028)."""
    parts = data.split(b"\n")
    lines = [part + b"\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


class AuditLog:
    """Appends hash-chained records to one audit log file.

    Args:
        path: The log file (created on first append with its directory).
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_audit_path()
        self.lock_path = self.path.with_name(self.path.name + ".lock")

    @contextmanager
    def _locked(self) -> Iterator[None]:
        key = str(self.path.resolve())
        held: set[str] = getattr(_held, "paths", set())
        if key in held:
            raise AuditError(self.path, None, "nested audit entry on the same log (would deadlock)")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            _held.paths = held | {key}
            try:
                yield
            finally:
                _held.paths = getattr(_held, "paths", set()) - {key}
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _head_locked(self) -> tuple[int, str]:
        """(seq, hash) of the last record, (0, GENESIS) when empty; caller holds the lock.

        Checks only the tail (last record and its link to the one before), so an
        append costs the same on a long log. Refuses a damaged tail rather than
        guessing: appending after it would hide the damage.
        """
        try:
            with open(self.path, "rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                lines = _tail(handle, size) if size else []
        except FileNotFoundError:
            return 0, GENESIS
        if not lines:
            return 0, GENESIS
        records: list[AuditRecord] = []
        for offset, raw in enumerate(lines):
            record, reason = _parse_line(raw)
            if reason is not None:
                line = _count_lines(self.path) - (len(lines) - 1 - offset)
                raise AuditError(
                    self.path,
                    line,
                    f"{reason}; refusing to append "
                    "(the file is left as it is: run `mragent audit verify`)",
                )
            assert record is not None
            records.append(record)
        last = records[-1]
        before = records[0] if len(records) == 2 else None
        expected_seq = before.seq + 1 if before else 1
        expected_prev = before.hash if before else GENESIS
        # _tail returns one line only when the file holds just that one.
        if last.seq != expected_seq or last.prev != expected_prev:
            raise AuditError(
                self.path,
                _count_lines(self.path),
                f"seq {last.seq}: broken chain at the tail; refusing to append "
                "(run `mragent audit verify`)",
            )
        return last.seq, last.hash

    def _append_locked(self, fields: dict[str, Any]) -> AuditRecord:
        seq, prev = self._head_locked()
        body = {
            **fields,
            "seq": seq + 1,
            "prev": prev,
            "time": datetime.now(timezone.utc).isoformat(timespec="microseconds"),
        }
        record = AuditRecord(**body, hash=record_hash(body))
        data = record.line()
        created = not self.path.exists()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            os.fsync(fd)  # on disk before the caller touches the database
        finally:
            os.close(fd)
        if created:
            # The new directory entry must survive a crash too, not just the bytes.
            dir_fd = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
        return record

    @contextmanager
    def entry(
        self,
        *,
        ns: str,
        principal: str,
        action: str,
        target: str,
        before: str | None = None,
        after: str | None = None,
        detail: dict[str, Any] | None = None,
    ) -> Iterator[AuditRecord]:
        """Append a record, then run the block that performs the write it describes.

        The record is fsync'ed before the block runs (write-ahead), and the log's
        lock is held until the block ends, so records, database writes and anchor
        updates happen in the same order across processes. If the block raises,
        an ``abort`` record (target: the aborted seq, detail: the error type) is
        appended and the exception propagates.

        Args:
            ns: The namespace written.
            principal: Who writes (already validated by the caller).
            action: One of :data:`ACTIONS` except ``abort``.
            target: The memory id (or other target) written.
            before: sha256 hex of the target's state before, None if new.
            after: sha256 hex of the state after, None if removed.
            detail: A small JSON object (at most 4 KiB serialised), or None.

        Yields:
            The appended record; use its ``seq`` and ``hash`` for the anchor.

        Raises:
            AuditError: on an invalid argument, or a damaged log tail (nothing
                is appended and the block does not run).
        """
        fields = {
            "ns": ns,
            "principal": principal,
            "action": action,
            "target": target,
            "before": before,
            "after": after,
            "detail": detail,
        }
        self._check(fields)
        with self._locked():
            record = self._append_locked(fields)
            try:
                yield record
            except BaseException as exc:
                # BaseException too: an interrupt mid-write is still a failed write.
                abort = {
                    **fields,
                    "action": "abort",
                    "target": str(record.seq),
                    "before": None,
                    "after": None,
                    "detail": {"error": type(exc).__name__, "action": action},
                }
                try:
                    self._append_locked(abort)
                except Exception as audit_exc:
                    # Keep the caller's error; say why the abort is missing
                    # (add_note is Python 3.11+; on 3.10 the error alone propagates).
                    if hasattr(exc, "add_note"):
                        exc.add_note(
                            f"audit: abort record for seq {record.seq} not written: {audit_exc}"
                        )
                raise

    def _check(self, fields: dict[str, Any]) -> None:
        if fields["action"] not in ACTIONS or fields["action"] == "abort":
            raise AuditError(self.path, None, f"unknown action {fields['action']!r}")
        for key in ("ns", "principal", "target"):
            if not isinstance(fields[key], str) or not fields[key]:
                raise AuditError(self.path, None, f"{key} must be a non-empty string")
        if len(fields["target"]) > MAX_TARGET_CHARS:
            raise AuditError(self.path, None, f"target longer than {MAX_TARGET_CHARS} chars")
        for key in ("before", "after"):
            value = fields[key]
            if value is not None and not (isinstance(value, str) and _HEX64.match(value)):
                raise AuditError(self.path, None, f"{key} must be a sha256 hex digest or None")
        detail = fields["detail"]
        if detail is not None:
            if not isinstance(detail, dict):
                raise AuditError(self.path, None, "detail must be a JSON object or None")
            try:
                size = len(canonical_json(detail).encode("utf-8"))
            except (TypeError, ValueError) as exc:
                raise AuditError(self.path, None, f"detail is not JSON: {exc}") from exc
            if size > MAX_DETAIL_BYTES:
                raise AuditError(self.path, None, f"detail larger than {MAX_DETAIL_BYTES} bytes")

    def head(self) -> tuple[int, str] | None:
        """(seq, hash) of the last record, None for an empty log.

        Raises:
            AuditError: when the tail is damaged.
        """
        with self._locked():
            seq, digest = self._head_locked()
        return (seq, digest) if seq else None

    def verify(self, anchors: Mapping[str, tuple[int, str]] | None = None) -> AuditReport:
        """:func:`verify` on this log."""
        return verify(self.path, anchors)


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
                record, reason = _parse_line(raw)
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
    by_seq: dict[int, AuditRecord] = {}
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        if anchors:
            report.problems.append(
                f"{path}: log missing, but {len(anchors)} namespace(s) have an audit anchor"
            )
        return report
    prev_hash: str | None = GENESIS  # None: the line before was unreadable
    prev_seq = 0
    with handle:
        for number, raw in enumerate(handle, start=1):
            report.records = number
            record, reason = _parse_line(raw)
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
    _check_anchors(report, by_seq, anchors)
    return report


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
