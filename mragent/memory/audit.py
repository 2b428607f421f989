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
(``cypher/audit_anchor.cypher``), and
:func:`~mragent.memory.audit_records.verify` checks the log against the anchors.

Writers use the log ahead of the database::

    with log.entry(ns=ns, principal=p, action="forget", target=mid, before=h) as rec:
        ...  # the database write, and the anchor update with rec.seq and rec.hash

The record is on disk (fsync) before the block runs; if the block raises, an
``abort`` record follows it. An exclusive lock is held for the whole block, so
concurrent processes append, write the database and move anchors in one order.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from mragent.core.files import fsync_dir
from mragent.core.paths import default_home
from mragent.memory.audit_records import (
    ACTIONS,
    GENESIS,
    HEX64,
    AuditError,
    AuditRecord,
    AuditReport,
    canonical_json,
    check_log_path,
    parse_line,
    read_key,
    record_hash,
    seal_of,
    verify,
)

MAX_DETAIL_BYTES = 4096
MAX_TARGET_CHARS = 1024
_CHUNK = 65536
# How long a writer waits for the log's lock before it reports who may hold it.
LOCK_TIMEOUT = 30.0
LOCK_POLL = 0.05
# Paths whose lock this thread holds: a nested entry() on the same log would
# otherwise wait forever on its own flock.
_held = threading.local()


def default_audit_path() -> Path:
    """The default audit log: ``$MRAGENT_AUDIT_LOG``, else ``default_home() / "audit.jsonl"``."""
    override = os.environ.get("MRAGENT_AUDIT_LOG")
    return Path(override).resolve() if override else default_home() / "audit.jsonl"


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
        self.lock_timeout = LOCK_TIMEOUT
        self._key: bytes | None = None
        check_log_path(self.path)

    def key(self) -> bytes:
        """The log's secret key, made at first use (see :func:`read_key`)."""
        if self._key is None:
            self._key = read_key(self.path, create=True)
        return self._key

    def seal(self, ns: str, scope: str, content: Mapping[str, Any]) -> str:
        """A memory version's seal: an HMAC, with the log's key, over what never
        changes once written (namespace, scope, id, key, text hash, principal,
        lineage, record time) and the trust state it is written in.

        Written with the version, it lets ``audit verify`` tell a version this
        mragent wrote from one edited or made in the database.
        """
        return seal_of(self.key(), ns, scope, content)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """The log's exclusive lock for one entry (taken already under :meth:`exclusive`)."""
        key = str(self.path.resolve())
        held: set[str] = getattr(_held, "paths", set())
        if key in held:
            raise AuditError(self.path, None, "nested audit entry on the same log (would deadlock)")
        _held.paths = held | {key}
        try:
            if key in getattr(_held, "exclusive", set()):
                yield
            else:
                with self._flock():
                    yield
        finally:
            _held.paths = getattr(_held, "paths", set()) - {key}

    @contextmanager
    def _flock(self) -> Iterator[None]:
        check_log_path(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.lock_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(fd, "a") as lock:
            self._wait_for(lock)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _wait_for(self, lock: IO[str]) -> None:
        """Take the lock, or give up after :attr:`lock_timeout` seconds: a process hung
        while holding it would otherwise stop every writer without a word."""
        deadline = time.monotonic() + self.lock_timeout
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise AuditError(
                        self.path, None,
                        f"the audit lock {self.lock_path} has been held by another process "
                        f"for {self.lock_timeout:g} s; is a writer hung? (fuser {self.lock_path})",
                    ) from None  # fmt: skip
                time.sleep(LOCK_POLL)

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the log's lock across a check and the write it decides.

        Inside the block, one :meth:`entry` at a time may run without taking the
        lock again. A writer that must check the database before it writes
        (identical text already remembered, text forgotten since) checks inside
        this block, so no other process can write in between: two processes
        remembering the same text make one memory.
        """
        key = str(self.path.resolve())
        exclusive: set[str] = getattr(_held, "exclusive", set())
        if key in exclusive or key in getattr(_held, "paths", set()):
            raise AuditError(self.path, None, "nested audit lock on the same log (would deadlock)")
        with self._flock():
            _held.exclusive = exclusive | {key}
            try:
                yield
            finally:
                _held.exclusive = getattr(_held, "exclusive", set()) - {key}

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
        key = self.key()
        for offset, raw in enumerate(lines):
            record, reason = parse_line(raw, key)
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
            "time": datetime.now(UTC).isoformat(timespec="microseconds"),
        }
        record = AuditRecord(**body, hash=record_hash(body, self.key()))
        data = record.line()
        created = not self.path.exists()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            os.fsync(fd)  # on disk before the caller touches the database
        finally:
            os.close(fd)
        if created:
            # The new directory entry must survive a crash too, not just the bytes.
            fsync_dir(self.path.parent)
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
                self._abort_locked(fields, record, exc)
                raise

    def _abort_locked(
        self, fields: dict[str, Any], record: AuditRecord, exc: BaseException
    ) -> None:
        """Append the ``abort`` record of ``record``, whose write failed with ``exc``."""
        abort = {
            **fields,
            "action": "abort",
            "target": str(record.seq),
            "before": None,
            "after": None,
            "detail": {"error": type(exc).__name__, "action": fields["action"]},
        }
        try:
            self._append_locked(abort)
        except Exception as audit_exc:
            # Keep the caller's error; say why the abort is missing.
            exc.add_note(f"audit: abort record for seq {record.seq} not written: {audit_exc}")

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
            if value is not None and not (isinstance(value, str) and HEX64.match(value)):
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
