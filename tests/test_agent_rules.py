"""The trust rules agents cannot route around, on every engine.

Review, trust and purge are for humans; an agent's correction of an accepted
memory waits for a human before it supersedes anything; an agent forgets only
what it wrote, and a human reviews that forget (confirms it or restores the
memory); grants bound the scopes a principal reads and writes. The rules live in
the memory layer, so these tests call it directly: the command line, the facade
and the MCP server all go through it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from mragent.apps.migrate import migrate_namespace
from mragent.apps.reembed.rewrite import reembed
from mragent.apps.transfer.export import export_memories
from mragent.apps.transfer.importer import import_memories
from mragent.core.embedding import HashingEmbedder
from mragent.core.errors import AccessDenied, WriteRefused
from mragent.core.genome import PRESETS
from mragent.core.store.base import GraphStore
from mragent.core.view import ReadView
from mragent.memory.audit import AuditLog
from mragent.memory.audit_check import verify_store
from mragent.memory.principal import Principal
from mragent.memory.reader import MemoryReader
from mragent.memory.writer import MemoryWriter

ANA = Principal("human", "ana")
BOB = Principal("human", "bob")
SCOUT = Principal("agent", "scout")
GENOME = PRESETS["default"]

FACT = "The Orion archive is guarded by Tomas Brandt."
FIX = "The Orion archive is guarded by Ilse Kruger."
QUESTION = "Who guards the Orion archive?"


def _clock(start: float = 1_000_000.0, step: float = 100.0) -> Callable[[], float]:
    ticks = iter(range(10_000))
    return lambda: start + step * next(ticks)


@pytest.fixture
def memories(store: GraphStore, ns: str, audit_log_path: Path) -> MemoryWriter:
    return MemoryWriter(store, ns, AuditLog(audit_log_path), clock=_clock())


def _answer_context(store: GraphStore, ns: str, view: ReadView | None = None) -> str:
    return MemoryReader(store, ns, view=view).reconstruct(QUESTION, GENOME).context.text


def _log_lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


# --- human-only actions ----------------------------------------------------------------


def test_purge_is_for_humans_only(memories: MemoryWriter, audit_log_path: Path) -> None:
    mine = memories.remember(FACT, principal=SCOUT)
    before = _log_lines(audit_log_path)
    with pytest.raises(WriteRefused, match="purge needs a human"):
        memories.purge(mine.id, principal=SCOUT, reason="cover it up")
    record = memories.get(mine.id)
    assert record.current and record.text == FACT and record.purged_at is None
    assert _log_lines(audit_log_path) == before  # refused before anything was logged
    assert memories.purge(mine.id, principal=ANA, reason="personal data") == [mine.id]


def test_trust_and_review_are_for_humans_only(memories: MemoryWriter) -> None:
    pending = memories.remember(FACT, principal=SCOUT)
    for act in (memories.accept, memories.reject):
        with pytest.raises(WriteRefused, match="review needs a human"):
            act(pending.id, principal=Principal("agent", "reviewer"))
    with pytest.raises(WriteRefused, match="trust needs a human"):
        memories.set_trust(SCOUT, principal=SCOUT, trusted=True)
    assert memories.get(pending.id).trust == "pending"


# --- an agent's correction of an accepted memory ------------------------------------


@pytest.mark.parametrize("trusted", [False, True])
def test_an_agents_correction_of_an_accepted_memory_waits_for_a_human(
    memories: MemoryWriter, store: GraphStore, ns: str, trusted: bool
) -> None:
    if trusted:
        memories.set_trust(SCOUT, principal=ANA, trusted=True)  # trust adds, never overrules
    old = memories.remember(FACT, principal=ANA)
    fix = memories.correct(old.id, FIX, principal=SCOUT)
    assert fix.trust == "pending" and fix.awaits_review == (old.id,)
    assert memories.get(old.id).current and memories.get(old.id).trust == "accepted"
    context = _answer_context(store, ns)
    assert "Tomas Brandt" in context and "Ilse Kruger" not in context  # recall still answers
    assert [row["corrects"] for row in memories.pending()] == [[old.id]]

    memories.accept(fix.id, principal=BOB)
    closed = memories.get(old.id)
    assert closed.superseded_at is not None and not closed.current
    assert memories.get(fix.id).trust == "accepted" and memories.get(fix.id).current
    context = _answer_context(store, ns)
    assert "Ilse Kruger" in context and "Tomas Brandt" not in context
    as_before = _answer_context(store, ns, ReadView(as_of=closed.superseded_at - 1))
    assert "Tomas Brandt" in as_before  # what was believed until the human accepted


def test_a_rejected_correction_leaves_the_accepted_memory_standing(
    memories: MemoryWriter, store: GraphStore, ns: str
) -> None:
    old = memories.remember(FACT, principal=ANA)
    fix = memories.correct(old.id, FIX, principal=SCOUT)
    memories.reject(fix.id, principal=BOB)
    assert memories.get(old.id).current and memories.get(fix.id).trust == "rejected"
    assert "Tomas Brandt" in _answer_context(store, ns)


def test_a_correction_overtaken_by_a_human_one_cannot_be_accepted(memories: MemoryWriter) -> None:
    old = memories.remember(FACT, principal=ANA)
    fix = memories.correct(old.id, FIX, principal=SCOUT)
    human = memories.correct(old.id, FIX.replace("Ilse", "Ida"), principal=BOB)
    with pytest.raises(WriteRefused, match="superseded since"):
        memories.accept(fix.id, principal=ANA)
    assert memories.get(human.id).current and memories.get(fix.id).trust == "pending"


def test_an_agent_correcting_its_own_pending_correction_keeps_the_wait(
    memories: MemoryWriter,
) -> None:
    old = memories.remember(FACT, principal=ANA)
    first = memories.correct(old.id, FIX, principal=SCOUT)
    second = memories.correct(first.id, FIX.replace("Ilse", "Ilsa"), principal=SCOUT)
    assert second.trust == "pending" and second.awaits_review == (old.id,)
    assert memories.get(old.id).current and not memories.get(first.id).current
    memories.accept(second.id, principal=BOB)
    assert not memories.get(old.id).current and memories.get(second.id).current


def test_an_agent_correcting_a_pending_memory_supersedes_it_at_once(
    memories: MemoryWriter,
) -> None:
    draft = memories.remember(FACT, principal=SCOUT)
    fix = memories.correct(draft.id, FIX, principal=SCOUT)
    assert fix.awaits_review == () and not memories.get(draft.id).current


# --- an agent's forget -----------------------------------------------------------------


def test_an_agent_forgets_only_what_it_wrote(
    memories: MemoryWriter, store: GraphStore, ns: str, audit_log_path: Path
) -> None:
    human = memories.remember(FACT, principal=ANA)
    before = _log_lines(audit_log_path)
    with pytest.raises(WriteRefused, match="only memories it wrote"):
        memories.forget(human.id, principal=SCOUT, reason="disagree")
    assert memories.get(human.id).current and _log_lines(audit_log_path) == before
    # A lineage holding another's version is not the agent's alone either.
    mine = memories.remember("The Vega ferry leaves at dawn.", principal=SCOUT)
    memories.accept(mine.id, principal=ANA)
    memories.correct(mine.id, "The Vega ferry leaves at noon.", principal=BOB)
    with pytest.raises(WriteRefused, match="human:bob"):
        memories.forget(mine.id, principal=SCOUT, reason="mine")
    assert "Tomas Brandt" in _answer_context(store, ns)


def test_a_human_reviews_an_agents_forget_and_can_restore_it(
    memories: MemoryWriter, store: GraphStore, ns: str, audit_log_path: Path
) -> None:
    memories.set_trust(SCOUT, principal=ANA, trusted=True)
    mine = memories.remember(FACT, principal=SCOUT)
    assert "Tomas Brandt" in _answer_context(store, ns)  # the control
    memories.forget(mine.id, principal=SCOUT, reason="retracting")
    assert "Tomas Brandt" not in _answer_context(store, ns)
    queue = memories.agent_forgets()
    assert [(row["id"], row["forgotten_by"]) for row in queue] == [(mine.id, "agent:scout")]

    assert memories.reject(mine.id, principal=ANA) == []  # restore
    restored = memories.get(mine.id)
    assert restored.current and restored.trust == "accepted" and restored.text == FACT
    assert restored.forget_reviewed_by == "human:ana"
    rec = MemoryReader(store, ns).reconstruct(QUESTION, GENOME)
    assert mine.id in {c.id for c in rec.candidates}  # reached by traversal: edges rebuilt
    assert "Tomas Brandt" in rec.context.text
    assert memories.agent_forgets() == []
    # The log tells the restore from a trust review: the audit still verifies.
    report = verify_store(store, AuditLog(audit_log_path), [ns])
    assert report.ok and report.memories == 1, report.problems

    memories.forget(mine.id, principal=SCOUT, reason="retracting again")
    assert [row["id"] for row in memories.agent_forgets()] == [mine.id]  # a new forget
    memories.accept(mine.id, principal=BOB)  # confirmed
    assert memories.get(mine.id).forgotten and memories.agent_forgets() == []
    assert "Tomas Brandt" not in _answer_context(store, ns)
    assert verify_store(store, AuditLog(audit_log_path), [ns]).ok


# --- grants ------------------------------------------------------------------------


def test_grants_bound_what_a_principal_reads_and_writes(
    memories: MemoryWriter, store: GraphStore, ns: str, audit_log_path: Path
) -> None:
    scout = Principal("agent", "scout", read=frozenset({"shared"}), write=frozenset({"notes"}))
    before = _log_lines(audit_log_path)
    with pytest.raises(AccessDenied, match="may not write scope 'shared'"):
        memories.remember(FACT, principal=scout)
    assert _log_lines(audit_log_path) == before
    every = {"ns": ns, "scopes": ["shared"], "include_forgotten": True}
    assert store.run("memory_ids", every) == []
    note = memories.remember(FACT, principal=scout, scope="notes")
    with pytest.raises(AccessDenied, match="may not read scope 'notes'"):
        memories.history(note.id, "notes", principal=scout)
    with pytest.raises(AccessDenied, match="may not read scope 'hr'"):
        scout.check_read(["shared", "hr"])
    scout.check_read(["shared"])
    assert [v.id for v in memories.history(note.id, "notes", principal=ANA)] == [note.id]


def test_import_migrate_and_reembed_are_not_for_agents_and_import_keeps_to_the_grants(
    memories: MemoryWriter, store: GraphStore, ns: str, audit_log_path: Path, tmp_path: Path
) -> None:
    """Each of them writes trust states or every scope's cues, not one agent memory."""
    memories.remember(FACT, principal=ANA)
    file = tmp_path / "memories.json"
    export_memories(store, ns, file, scopes=["shared"])
    audit = AuditLog(audit_log_path)
    before = _log_lines(audit_log_path)
    with pytest.raises(WriteRefused, match="not agent:scout"):
        import_memories(store, ns, file, principal=SCOUT, audit=audit)
    with pytest.raises(WriteRefused, match="not agent:scout"):
        migrate_namespace(store, ns, principal=SCOUT, audit=audit)
    with pytest.raises(WriteRefused, match="not agent:scout"):
        reembed(store, ns, HashingEmbedder(dimension=64), principal=SCOUT, audit=audit)
    bob = Principal("human", "bob", read=frozenset({"shared"}), write=frozenset({"notes"}))
    with pytest.raises(AccessDenied, match="may not write scope 'shared'"):
        import_memories(store, ns, file, principal=bob, audit=audit, mode="replace",
                        confirm_replace=True)  # fmt: skip
    assert _log_lines(audit_log_path) == before
    assert "Brandt" in _answer_context(store, ns)  # replace deleted nothing
    # The control: a human granted the scope imports (every version is already there).
    assert import_memories(store, ns, file, principal=ANA, audit=audit).skipped == 1
