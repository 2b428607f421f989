"""The audit log: hash chain, tamper detection, write-ahead, processes, anchors."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import time
import uuid
from pathlib import Path

import pytest

from mragent.core.errors import MragentError
from mragent.core.queries import get_query
from mragent.core.store.base import GraphStore
from mragent.memory import audit
from mragent.memory.audit import AuditLog, default_audit_path
from mragent.memory.audit_records import (
    FIELDS,
    GENESIS,
    AuditError,
    canonical_json,
    read_records,
    record_hash,
    verify,
)

H1 = hashlib.sha256(b"one").hexdigest()
H2 = hashlib.sha256(b"two").hexdigest()


def _write(log: AuditLog, n: int, ns: str = "ns1", **extra: object) -> list:
    records = []
    for i in range(n):
        with log.entry(
            ns=ns, principal="human:ann", action="remember", target=f"m{i}", after=H1, **extra
        ) as record:
            records.append(record)
    return records


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")[:-1]


def _save(path: Path, lines: list[bytes]) -> None:
    path.write_bytes(b"".join(line + b"\n" for line in lines))


def _problem_lines(report) -> set[int]:
    return {int(p.split(":")[0].split()[1]) for p in report.problems if p.startswith("line ")}


@pytest.fixture
def log(tmp_path: Path) -> AuditLog:
    return AuditLog(tmp_path / "audit.jsonl")


# --- append and verify ---------------------------------------------------------------


def test_round_trip_chains_records(log: AuditLog) -> None:
    first = _write(log, 2, "ns1")
    with log.entry(
        ns="ns2",
        principal="agent:bot",
        action="correct",
        target="m9",
        before=H1,
        after=H2,
        detail={"reason": "typo"},
    ) as third:
        pass
    records = [*first, third]
    assert [r.seq for r in records] == [1, 2, 3]
    assert records[0].prev == GENESIS
    assert [r.prev for r in records[1:]] == [r.hash for r in records[:-1]]
    for record in records:
        assert record.hash == record_hash(record.as_dict(), log.key())
    # Keyed: the hash is an HMAC, not the plain sha256 anyone could recompute.
    body = {k: v for k, v in records[0].as_dict().items() if k != "hash"}
    assert records[0].hash != hashlib.sha256(canonical_json(body).encode()).hexdigest()
    assert (log.path.with_name("audit.jsonl.key").stat().st_mode & 0o777) == 0o600
    assert (log.path.stat().st_mode & 0o777) == 0o600
    assert read_records(log.path) == records
    # One canonical JSON object per line: what is hashed is what is written.
    assert [json.loads(line) for line in _lines(log.path)] == [r.as_dict() for r in records]
    assert _lines(log.path)[2].decode() == canonical_json(third.as_dict())
    report = verify(log.path)
    assert report.ok and report.problems == [] and report.records == 3
    assert report.head == (3, third.hash)
    assert report.last_by_ns == {"ns1": (2, first[1].hash), "ns2": (3, third.hash)}
    assert log.head() == (3, third.hash)


def test_missing_log_is_empty_unless_anchored(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    report = verify(missing)
    assert report.ok and report.records == 0 and report.head is None
    assert AuditLog(missing).head() is None
    anchored = verify(missing, {"ns1": (4, H1)})
    assert not anchored.ok and "log missing" in anchored.problems[0]


def test_default_path_follows_mragent_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MRAGENT_AUDIT_LOG", raising=False)
    monkeypatch.setenv("MRAGENT_HOME", str(tmp_path / "home"))
    assert default_audit_path() == (tmp_path / "home" / "audit.jsonl").resolve()
    assert AuditLog().path == default_audit_path()


def test_an_explicit_log_path_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MRAGENT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MRAGENT_AUDIT_LOG", str(tmp_path / "elsewhere.jsonl"))
    assert default_audit_path() == (tmp_path / "elsewhere.jsonl").resolve()


def test_line_separators_inside_values_stay_on_one_line(log: AuditLog) -> None:
    # ensure_ascii=False keeps U+2028 raw; only b"\n" may split records.
    odd = "a\u2028b\u0085c\nd"
    with log.entry(
        ns="ns1", principal="human:ann", action="forget", target=odd, detail={"why": odd}
    ):
        pass
    _write(log, 1)
    assert verify(log.path).ok and verify(log.path).records == 2
    assert read_records(log.path)[0].target == odd
    assert log.head()[0] == 2


# --- tampering -----------------------------------------------------------------------

_EDITS = {
    "seq": 99,
    "time": "2001-01-01T00:00:00.000000+00:00",
    "ns": "other",
    "principal": "human:mallory",
    "action": "purge",
    "target": "m-forged",
    "before": H2,
    "after": None,
    "detail": {"x": 1},
    "prev": "f" * 64,
    "hash": "e" * 64,
}


@pytest.mark.parametrize("line", [1, 2, 3])
@pytest.mark.parametrize("name", FIELDS)
def test_editing_any_field_of_any_record_is_named(log: AuditLog, name: str, line: int) -> None:
    _write(log, 3)
    lines = _lines(log.path)
    obj = json.loads(lines[line - 1])
    assert obj[name] != _EDITS[name]
    obj[name] = _EDITS[name]
    lines[line - 1] = canonical_json(obj).encode()
    _save(log.path, lines)
    report = verify(log.path)
    assert not report.ok
    assert line in _problem_lines(report), report.problems
    # And no further write lands on top of a damaged tail.
    if line == 3:
        with pytest.raises(AuditError):
            _write(log, 1)


def test_an_edit_with_a_recomputed_hash_breaks_the_next_link(log: AuditLog) -> None:
    _write(log, 3)
    lines = _lines(log.path)
    obj = json.loads(lines[1])
    obj["target"] = "m-forged"
    obj["hash"] = record_hash(obj, log.key())  # even with the key
    lines[1] = canonical_json(obj).encode()
    _save(log.path, lines)
    report = verify(log.path)
    assert _problem_lines(report) == {3}
    assert "prev does not match" in report.problems[0]


def test_a_log_rehashed_without_the_key_is_detected(log: AuditLog) -> None:
    records = _write(log, 3)
    anchors = {"ns1": (3, records[-1].hash)}
    assert verify(log.path, anchors).ok
    # Whoever can write the file but not read the key re-hashes every record after
    # an edit (plain sha256, or an HMAC with a key of their own) ...
    for forged_key in (b"", os.urandom(32)):
        objs = [json.loads(line) for line in _lines(log.path)]
        objs[0]["principal"] = "human:mallory"
        prev = GENESIS
        for obj in objs:
            obj["prev"] = prev
            obj["hash"] = prev = record_hash(obj, forged_key)
        _save(log.path, [canonical_json(obj).encode() for obj in objs])
        # ... and the chain alone already shows it, anchors or not.
        report = verify(log.path)
        assert not report.ok and _problem_lines(report) == {1, 2, 3}, report.problems
        assert "re-hashed" in report.problems[0]
        anchored = verify(log.path, {"ns1": (3, objs[-1]["hash"])})
        assert not anchored.ok


def test_a_log_without_its_key_does_not_verify(log: AuditLog) -> None:
    _write(log, 2)
    log.path.with_name("audit.jsonl.key").unlink()
    report = verify(log.path)
    assert not report.ok and "audit key" in report.problems[0]


def test_a_log_whose_key_is_gone_takes_no_new_record(log: AuditLog) -> None:
    _write(log, 2)
    before = log.path.read_bytes()
    log.path.with_name("audit.jsonl.key").unlink()
    # A fresh handle, as the next process would open it: a new key would seal records
    # the old ones cannot be checked against.
    with pytest.raises(MragentError, match="missing while the log holds records"):
        _write(AuditLog(log.path), 1)
    assert log.path.read_bytes() == before
    assert not log.path.with_name("audit.jsonl.key").exists()


def test_deleting_a_middle_record_is_named(log: AuditLog) -> None:
    _write(log, 4)
    lines = _lines(log.path)
    del lines[1]
    _save(log.path, lines)
    report = verify(log.path)
    assert not report.ok
    assert _problem_lines(report) == {2}
    assert any("seq jumps from 1 to 3" in p for p in report.problems)


def test_deleting_the_first_record_is_named(log: AuditLog) -> None:
    _write(log, 2)
    _save(log.path, _lines(log.path)[1:])
    assert _problem_lines(verify(log.path)) == {1}


def test_reordering_records_is_named(log: AuditLog) -> None:
    _write(log, 4)
    lines = _lines(log.path)
    lines[1], lines[2] = lines[2], lines[1]
    _save(log.path, lines)
    report = verify(log.path)
    assert _problem_lines(report) == {2, 3, 4}
    assert any("line 3: seq 2 after 3" in p for p in report.problems)


def test_deleting_the_last_record_needs_the_anchor(log: AuditLog) -> None:
    records = _write(log, 3)
    anchors = {"ns1": (3, records[-1].hash)}
    _save(log.path, _lines(log.path)[:-1])
    # A cut tail is still a valid chain: without anchors nothing can tell.
    assert verify(log.path).ok
    report = verify(log.path, anchors)
    assert not report.ok
    assert "seq 3 is not in the log" in report.problems[0]
    # Emptying the file is the same cut.
    log.path.write_bytes(b"")
    assert not verify(log.path, anchors).ok


def test_anchor_on_the_wrong_namespace_is_a_problem(log: AuditLog) -> None:
    records = _write(log, 2)
    report = verify(log.path, {"other": (2, records[1].hash)})
    assert not report.ok and "differs from the anchor" in report.problems[0]


# --- damaged tail: refuse, never repair ------------------------------------------------


@pytest.mark.parametrize(
    "garbage",
    [b'{"seq": 4, "ti', b"not json\n", b"\n", b'{"seq": 4}\n', b"[1, 2]\n"],
    ids=["torn", "garbage", "blank", "fields", "array"],
)
def test_a_damaged_tail_refuses_appends_and_is_reported(log: AuditLog, garbage: bytes) -> None:
    _write(log, 3)
    damaged = log.path.read_bytes() + garbage
    log.path.write_bytes(damaged)
    with pytest.raises(AuditError) as caught:
        _write(log, 1)
    assert isinstance(caught.value, MragentError)
    assert caught.value.line == 4 and "line 4" in str(caught.value)
    assert str(log.path) in str(caught.value) and "refusing to append" in str(caught.value)
    assert log.path.read_bytes() == damaged  # not truncated, not rewritten
    with pytest.raises(AuditError):
        log.head()
    report = verify(log.path)
    assert _problem_lines(report) == {4}
    assert report.records == 4 and report.head[0] == 3


def test_a_torn_line_is_called_torn(log: AuditLog) -> None:
    _write(log, 1)
    log.path.write_bytes(log.path.read_bytes() + b'{"seq": 2')
    assert "torn" in verify(log.path).problems[0]


def test_a_whole_record_without_its_newline_is_torn(log: AuditLog) -> None:
    # Appending after it would glue two records onto one line.
    _write(log, 3)
    damaged = log.path.read_bytes()[:-1]
    log.path.write_bytes(damaged)
    with pytest.raises(AuditError, match="torn"):
        _write(log, 1)
    assert log.path.read_bytes() == damaged
    report = verify(log.path)
    assert _problem_lines(report) == {3} and "torn" in report.problems[0]


def test_a_broken_link_at_the_tail_refuses_appends(log: AuditLog) -> None:
    _write(log, 3)
    lines = _lines(log.path)
    del lines[1]
    _save(log.path, lines)
    with pytest.raises(AuditError, match="broken chain"):
        _write(log, 1)
    assert len(_lines(log.path)) == 2


def test_refusal_on_a_long_log_reads_only_the_tail(log: AuditLog) -> None:
    # More than one read chunk: the tail scan must find the last two whole lines.
    _write(log, 300, detail={"pad": "x" * 400})
    assert log.path.stat().st_size > 2 * 65536
    assert log.head()[0] == 300
    log.path.write_bytes(log.path.read_bytes() + b"{")
    with pytest.raises(AuditError) as caught:
        _write(log, 1)
    assert caught.value.line == 301


# --- write-ahead and abort -------------------------------------------------------------


def test_the_record_is_on_disk_before_the_block_runs(
    log: AuditLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []
    real_fsync = audit.os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.fstat(fd).st_ino)
        real_fsync(fd)

    monkeypatch.setattr(audit.os, "fsync", fsync)
    with log.entry(ns="ns1", principal="human:ann", action="trust", target="agent:bot") as rec:
        assert read_records(log.path) == [rec]
        # The file itself, not only its directory entry.
        assert log.path.stat().st_ino in synced, "the record must be fsync'ed before the write"


def test_a_failing_write_appends_an_abort(log: AuditLog) -> None:
    _write(log, 1)
    with (
        pytest.raises(ValueError, match="db down"),
        log.entry(ns="ns1", principal="human:ann", action="forget", target="m0", before=H1),
    ):
        raise ValueError("db down")
    intent, abort = read_records(log.path)[1:]
    assert intent.action == "forget" and intent.seq == 2
    assert abort.action == "abort" and abort.seq == 3 and abort.prev == intent.hash
    assert abort.target == "2" and abort.ns == "ns1" and abort.principal == "human:ann"
    assert abort.detail == {"error": "ValueError", "action": "forget"}
    assert verify(log.path).ok
    _write(log, 1)  # the log goes on after an abort
    assert log.head()[0] == 4


def test_the_callers_error_survives_a_failed_abort(log: AuditLog) -> None:
    with (
        pytest.raises(ValueError) as caught,
        log.entry(ns="ns1", principal="human:ann", action="forget", target="m0"),
    ):
        log.path.write_bytes(log.path.read_bytes() + b"{torn")
        raise ValueError("db down")
    if hasattr(caught.value, "__notes__"):
        assert "abort record for seq 1 not written" in caught.value.__notes__[0]
    assert log.path.read_bytes().endswith(b"{torn")  # the damage is left for verify


def test_an_aborted_write_after_the_anchor_is_settled(log: AuditLog) -> None:
    [anchored] = _write(log, 1)
    anchors = {"ns1": (1, anchored.hash)}
    with (
        pytest.raises(RuntimeError),
        log.entry(ns="ns1", principal="human:ann", action="purge", target="m0"),
    ):
        raise RuntimeError
    report = verify(log.path, anchors)
    assert report.ok and report.warnings == []
    # A record after the anchor that was never aborted: a crash before the
    # database write (or an appended forgery). Intact, so a warning only.
    _write(log, 1)
    report = verify(log.path, anchors)
    assert report.ok and len(report.warnings) == 1 and "seq 4" in report.warnings[0]


def test_invalid_entries_append_nothing(log: AuditLog) -> None:
    bad = [
        {"action": "abort"},
        {"action": "delete"},
        {"principal": ""},
        {"before": "abc"},
        {"after": H1.upper()},
        {"detail": ["not", "an", "object"]},
        {"detail": {"big": "x" * 5000}},
        {"detail": {"nan": float("nan")}},
        {"detail": {"obj": object()}},
        {"target": "t" * 2000},
    ]
    for change in bad:
        args = {"ns": "ns1", "principal": "human:ann", "action": "remember", "target": "m"}
        args.update(change)
        with pytest.raises(AuditError), log.entry(**args):
            pytest.fail(f"block ran for {change}")
    assert not log.path.exists()


def test_nested_entries_on_one_log_fail_instead_of_deadlocking(log: AuditLog) -> None:
    with (
        pytest.raises(AuditError, match="nested"),
        log.entry(ns="ns1", principal="human:ann", action="remember", target="a"),
        log.entry(ns="ns1", principal="human:ann", action="remember", target="b"),
    ):
        pass
    [outer, abort] = read_records(log.path)
    assert outer.target == "a" and abort.detail["error"] == "AuditError"
    _write(log, 1)  # the lock was released


# --- real processes --------------------------------------------------------------------


def _writer(path: str, worker: int, count: int) -> None:
    log = AuditLog(Path(path))
    order = Path(path).with_name("order.txt")
    for i in range(count):
        with log.entry(
            ns=f"ns{worker % 2}",
            principal=f"agent:w{worker}",
            action="remember",
            target=f"w{worker}-{i}",
            after=H1,
        ) as record:
            # Stands in for the database write: if the lock did not cover the
            # block, another writer's seq could land here first.
            time.sleep(0.001)
            with open(order, "a") as handle:
                handle.write(f"{record.seq}\n")


def test_concurrent_processes_build_one_valid_chain(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    workers, count = 4, 25
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(path), w, count)) for w in range(workers)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(120)
        assert proc.exitcode == 0
    report = verify(path)
    assert report.ok, report.problems
    assert report.records == workers * count
    records = read_records(path)
    assert [r.seq for r in records] == list(range(1, workers * count + 1))
    assert sorted(r.target for r in records) == sorted(
        f"w{w}-{i}" for w in range(workers) for i in range(count)
    )
    order = [int(x) for x in (tmp_path / "order.txt").read_text().split()]
    assert order == list(range(1, workers * count + 1))


# --- the anchor in the database -----------------------------------------------------------


def test_anchor_query_declares_its_header() -> None:
    template = get_query("audit_anchor", "falkordb")
    assert template.params == frozenset({"ns", "seq", "head", "mac"})
    assert template.returns == ("seq", "head")
    assert "// scope: namespace-wide:" in template.text


def test_anchor_round_trip_on_embedded_falkordb(log: AuditLog, falkor_store: GraphStore) -> None:
    ns = f"t-{uuid.uuid4().hex[:12]}"
    try:

        def anchor(seq: int, head: str) -> tuple[int, str]:
            params = {"ns": ns, "seq": seq, "head": head, "mac": "0" * 64}
            [row] = falkor_store.run("audit_anchor", params)
            return row["seq"], row["head"]

        for _ in range(3):
            with log.entry(ns=ns, principal="human:ann", action="remember", target="m") as rec:
                assert anchor(rec.seq, rec.hash) == (rec.seq, rec.hash)
        head = (rec.seq, rec.hash)
        # Never backwards: a restarted log cannot overwrite the anchor.
        assert anchor(1, "0" * 64) == head
        assert anchor(0, "") == head  # a harmless read of the current anchor
        assert verify(log.path, {ns: anchor(0, "")}).ok
        _save(log.path, _lines(log.path)[:-1])
        assert not verify(log.path, {ns: anchor(0, "")}).ok
    finally:
        falkor_store.run("delete_namespace", {"ns": ns})
