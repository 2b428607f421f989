"""``audit verify`` finds edits made through the database alone, on every engine.

The attacker here can write the database (any Cypher, run below through the
store's own connection) but cannot read the audit log's key.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mragent.cli import app
from mragent.core.corpus import parse_corpus
from mragent.core.store.base import GraphStore
from mragent.memory.audit import AuditLog
from mragent.memory.audit_check import verify_store
from mragent.memory.audit_records import read_records
from mragent.memory.ingest import text_hash
from mragent.memory.principal import Principal
from mragent.memory.writer import MemoryWriter
from tests.fixtures import CHAIN, ingest

ANA = Principal("human", "ana")
BOB = Principal("human", "bob")
BOT = Principal("agent", "bot")


def tamper(store: GraphStore, cypher: str, **params: Any) -> None:
    """Run raw Cypher on the store's connection: an edit the audit never saw."""
    store._execute("tamper", cypher, params)


@pytest.fixture
def written(store: GraphStore, ns: str, audit_log_path: Path) -> dict[str, str]:
    """Every kind of audited write, so an intact namespace is a full one."""
    log = AuditLog(audit_log_path)
    ingest(store, parse_corpus(CHAIN), ns, audit=log)
    mem = MemoryWriter(store, ns, log)
    base = mem.remember("The Vega ferry leaves at dawn.", principal=ANA, title="Vega ferry")
    fixed = mem.correct(base.id, "The Vega ferry leaves at six.", principal=ANA)
    pending = mem.remember("The Vega ferry carries twelve cars.", principal=BOT)
    depends = mem.remember("Twelve cars fill the deck.", principal=ANA, depends_on=[pending.id])
    mem.accept(pending.id, principal=BOB)
    rejected = mem.remember("The Vega ferry is painted red.", principal=BOT)
    mem.reject(rejected.id, principal=BOB)
    agent = mem.remember("The harbour opens at five.", principal=BOT)
    gone = mem.remember("The harbour code is 4417.", principal=ANA)
    mem.forget(gone.id, principal=ANA, reason="secret")
    purged = mem.remember("The spare key is under the mat.", principal=ANA)
    mem.purge(purged.id, principal=ANA, reason="secret")
    return {
        "fixed": fixed.id,
        "agent": agent.id,
        "gone": gone.id,
        "depends": depends.id,
        "rejected": rejected.id,
    }


def _report(store: GraphStore, ns: str, path: Path) -> list[str]:
    return verify_store(store, AuditLog(path), [ns]).problems


def test_an_untouched_namespace_verifies(
    store: GraphStore, ns: str, written: dict[str, str], audit_log_path: Path
) -> None:
    report = verify_store(store, AuditLog(audit_log_path), [ns])
    assert report.ok, report.problems
    assert report.memories == 4 + 8  # the corpus and every version remembered


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (
            "MATCH (m:Content {id: $id}) SET m.text = 'The Vega ferry never sails.'",
            "text was edited",
        ),
        ("MATCH (m:Content {id: $id}) SET m.text = $text, m.hash = $hash", "seal does not match"),
        ("MATCH (m:Content {id: $id}) SET m.principal = 'human:mallory'", "seal does not match"),
        ("MATCH (m:Content {id: $id}) SET m.seal = null", "carries no seal"),
    ],
)
def test_an_edited_memory_is_found(
    store: GraphStore,
    ns: str,
    written: dict[str, str],
    audit_log_path: Path,
    edit: str,
    needle: str,
) -> None:
    forged = "The Vega ferry never sails."
    params = {"id": written["fixed"], "text": forged, "hash": text_hash(forged)}
    tamper(store, edit, **{k: v for k, v in params.items() if f"${k}" in edit})
    problems = _report(store, ns, audit_log_path)
    assert any(written["fixed"] in p and needle in p for p in problems), problems


@pytest.mark.parametrize(
    ("memory", "trust"), [("agent", "accepted"), ("rejected", "pending"), ("rejected", "accepted")]
)
def test_a_trust_state_changed_in_the_database_is_found(
    store: GraphStore,
    ns: str,
    written: dict[str, str],
    audit_log_path: Path,
    memory: str,
    trust: str,
) -> None:
    target = written[memory]
    tamper(
        store,
        "MATCH (m:Content {id: $id}) SET m.trust = $trust, m.trust_log = m.trust_log + [$trust]",
        id=target,
        trust=trust,
    )
    problems = _report(store, ns, audit_log_path)
    assert any(target in p and "by the audit log" in p for p in problems), problems


def test_a_forgotten_memory_made_live_again_is_found(
    store: GraphStore, ns: str, written: dict[str, str], audit_log_path: Path
) -> None:
    tamper(store, "MATCH (m:Content {id: $id}) SET m.forgotten_at = null", id=written["gone"])
    problems = _report(store, ns, audit_log_path)
    assert any(written["gone"] in p and "is live" in p for p in problems), problems


def test_an_anchor_moved_back_is_found(
    store: GraphStore, ns: str, written: dict[str, str], audit_log_path: Path
) -> None:
    records = [r for r in read_records(audit_log_path) if r.ns == ns]
    back = records[-3]
    tamper(
        store,
        "MATCH (s:MemorySpace {ns: $ns}) SET s.audit_seq = $seq, s.audit_head = $head",
        ns=ns,
        seq=back.seq,
        head=back.hash,
    )
    problems = _report(store, ns, audit_log_path)
    assert any("without the audit key" in p for p in problems), problems


def test_a_memory_deleted_in_the_database_is_found(
    store: GraphStore, ns: str, written: dict[str, str], audit_log_path: Path
) -> None:
    tamper(store, "MATCH (m:Content {id: $id}) DETACH DELETE m", id=written["agent"])
    problems = _report(store, ns, audit_log_path)
    assert any(written["agent"] in p and "not in the namespace" in p for p in problems), problems


def test_an_ingested_memory_deleted_in_the_database_is_found(
    store: GraphStore, ns: str, written: dict[str, str], audit_log_path: Path
) -> None:
    tamper(
        store,
        "MATCH (m:Content {ns: $ns}) WHERE m.id <> m.key WITH m LIMIT 1 DETACH DELETE m",
        ns=ns,
    )
    problems = _report(store, ns, audit_log_path)
    assert any("holds 3 of the 4 contents" in p for p in problems), problems


def test_a_memory_moved_to_another_namespace_is_found(
    store: GraphStore, ns: str, written: dict[str, str], audit_log_path: Path
) -> None:
    elsewhere = f"{ns}-elsewhere"
    try:
        tamper(
            store, "MATCH (m:Content {id: $id}) SET m.ns = $to", id=written["agent"], to=elsewhere
        )
        problems = _report(store, ns, audit_log_path)
        assert any(written["agent"] in p and "moved" in p for p in problems), problems
        # Checking every namespace also finds where it went.
        everything = verify_store(store, AuditLog(audit_log_path)).problems
        assert any(elsewhere in p and "no anchor" in p for p in everything), everything
    finally:
        store.run("delete_namespace", {"ns": elsewhere})


def test_a_cut_tail_hidden_by_moving_the_anchor_back_is_found(
    store: GraphStore, ns: str, written: dict[str, str], audit_log_path: Path
) -> None:
    """The last record removed from the log and the anchor set to the record before,
    with the hashes the log shows everyone: the anchor's key mark gives it away, and
    the memory the cut record wrote has no record any more."""
    lines = audit_log_path.read_bytes().splitlines(keepends=True)
    mem = MemoryWriter(store, ns, AuditLog(audit_log_path))
    last = mem.remember("The night ferry is cancelled.", principal=ANA)
    audit_log_path.write_bytes(b"".join(lines))
    back = read_records(audit_log_path)[-1]
    tamper(
        store,
        "MATCH (s:MemorySpace {ns: $ns}) SET s.audit_seq = $seq, s.audit_head = $head",
        ns=ns,
        seq=back.seq,
        head=back.hash,
    )
    problems = _report(store, ns, audit_log_path)
    assert any("without the audit key" in p for p in problems), problems
    assert any(last.id in p and "no audit record" in p for p in problems), problems


def test_a_database_behind_the_log_is_told_apart_from_tampering(
    store: GraphStore, ns: str, written: dict[str, str], audit_log_path: Path
) -> None:
    """A database restored from a copy taken before its last writes (what a power
    loss without fsync leaves): the anchor is genuine, the records after it are the
    lost writes, and their memories are missing; no tampering is claimed."""
    space = store.run("namespaces", {})
    (before,) = [row for row in space if row["ns"] == ns]
    mem = MemoryWriter(store, ns, AuditLog(audit_log_path))
    lost = [mem.remember(f"Pier {n} closes at noon.", principal=ANA).id for n in range(3)]
    tamper(store, "MATCH (m:Content) WHERE m.id IN $ids DETACH DELETE m", ids=lost)
    tamper(
        store,
        "MATCH (s:MemorySpace {ns: $ns}) "
        "SET s.audit_seq = $seq, s.audit_head = $head, s.audit_mac = $mac",
        ns=ns,
        seq=before["audit_seq"],
        head=before["audit_head"],
        mac=before["audit_mac"],
    )
    report = verify_store(store, AuditLog(audit_log_path), [ns])
    assert report.problems == [], report.problems  # nothing was tampered with
    assert any("database is behind the log" in p for p in report.lost), report.lost
    assert sum(any(mid in p for p in report.lost) for mid in lost) == 3, report.lost
    # One more write moves the anchor past the lost ones: still not intact.
    mem.remember("Pier 9 closes at dusk.", principal=ANA)
    problems = _report(store, ns, audit_log_path)
    assert all(any(mid in p and "not in the namespace" in p for p in problems) for mid in lost)


def test_one_write_the_database_lost_is_not_intact(
    store: GraphStore, ns: str, written: dict[str, str], audit_log_path: Path
) -> None:
    """One record past a genuine anchor is what a crash mid-write leaves, and also
    what a database that lost its last acknowledged write shows: either way the
    audited memory is missing, and verify says so (not tampering, not intact)."""
    (before,) = [row for row in store.run("namespaces", {}) if row["ns"] == ns]
    lost = MemoryWriter(store, ns, AuditLog(audit_log_path)).remember(
        "Pier 4 is shut.", principal=ANA
    )
    tamper(store, "MATCH (m:Content {id: $id}) DETACH DELETE m", id=lost.id)
    tamper(
        store,
        "MATCH (s:MemorySpace {ns: $ns}) "
        "SET s.audit_seq = $seq, s.audit_head = $head, s.audit_mac = $mac",
        ns=ns,
        seq=before["audit_seq"],
        head=before["audit_head"],
        mac=before["audit_mac"],
    )
    report = verify_store(store, AuditLog(audit_log_path), [ns])
    assert not report.ok and report.problems == [], report.problems
    assert any(lost.id in p and "past the anchor" in p for p in report.lost), report.lost
    done = CliRunner().invoke(
        app, ["audit", "verify", "--ns", ns, "--db", store.secret_url, "--audit-log",
              str(audit_log_path)],
    )  # fmt: skip
    assert done.exit_code == 4 and "DATABASE BEHIND THE LOG" in done.output, done.output


def test_an_anchor_stripped_of_its_key_mark_is_found(
    store: GraphStore, ns: str, written: dict[str, str], audit_log_path: Path
) -> None:
    tamper(store, "MATCH (s:MemorySpace {ns: $ns}) SET s.audit_mac = null", ns=ns)
    problems = _report(store, ns, audit_log_path)
    assert any("carries no key mark" in p for p in problems), problems
    # The namespace's next audited write re-keys its anchor.
    MemoryWriter(store, ns, AuditLog(audit_log_path)).remember("Pier 7 opens.", principal=ANA)
    assert _report(store, ns, audit_log_path) == []
