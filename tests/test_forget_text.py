"""A forgotten text stays refused as the design says (a hash of normalised text):
with other whitespace, in another scope of the namespace, after purge, on every
write path (remember, correct, ingest, import), until it is re-admitted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mragent.apps.transfer.export import export_memories
from mragent.apps.transfer.importer import import_memories
from mragent.core.corpus import parse_corpus
from mragent.core.errors import WriteRefused
from mragent.core.store.base import GraphStore
from mragent.memory import ingest as ingest_module
from mragent.memory.audit import AuditLog
from mragent.memory.ingest import forget_key, ingest
from mragent.memory.ingest_source import Tombstones
from mragent.memory.principal import Principal
from mragent.memory.writer import MemoryWriter

ANA = Principal("human", "ana")
SECRET = "The vault code is 4711."
SPELLINGS = [SECRET + " ", " " + SECRET, "The  vault code\nis 4711.", "The vault\tcode is 4711.\n"]


def test_the_forget_key_normalises_whitespace_only() -> None:
    assert {forget_key(text) for text in SPELLINGS} == {forget_key(SECRET)}
    assert forget_key("The vault code is 4712.") != forget_key(SECRET)


@pytest.fixture
def forgotten(store: GraphStore, ns: str, audit_log_path: Path) -> MemoryWriter:
    memories = MemoryWriter(store, ns, AuditLog(audit_log_path))
    written = memories.remember(SECRET, principal=ANA)
    memories.forget(written.id, principal=ANA, reason="leaked")
    return memories


@pytest.mark.parametrize("text", SPELLINGS)
def test_remember_refuses_the_text_with_other_whitespace(
    forgotten: MemoryWriter, text: str
) -> None:
    with pytest.raises(WriteRefused, match="identical text was forgotten"):
        forgotten.remember(text, principal=ANA)


def test_remember_refuses_it_in_another_scope_without_naming_the_memory(
    forgotten: MemoryWriter,
) -> None:
    with pytest.raises(WriteRefused, match=r"forgotten \(in another scope\)"):
        forgotten.remember(SECRET + " ", principal=ANA, scope="ops")
    assert forgotten.remember(SECRET, principal=ANA, scope="ops", readmit=True).created


def test_correct_refuses_it(forgotten: MemoryWriter) -> None:
    other = forgotten.remember("The harbour opens at five.", principal=ANA)
    with pytest.raises(WriteRefused, match="identical text was forgotten"):
        forgotten.correct(other.id, SECRET + "  ", principal=ANA)


def test_it_stays_refused_after_purge_and_in_bulk_writes(
    forgotten: MemoryWriter, tmp_path: Path
) -> None:
    (gone,) = [r for r in forgotten.store.run("memory_tombstone_hashes", {"ns": forgotten.ns})]
    forgotten.purge(gone["lineage"], principal=ANA, reason="leaked")
    with pytest.raises(WriteRefused, match="identical text was forgotten"):
        forgotten.remember(SECRET + "\n", principal=ANA)
    corpus = parse_corpus({"contents": [{"id": "c1", "text": "  " + SECRET}]})
    with pytest.raises(WriteRefused, match="record 0: identical text was forgotten"):
        ingest(forgotten.store, corpus, forgotten.ns, principal=ANA, audit=forgotten.audit,
               scope="ops")  # fmt: skip


def test_ingest_refuses_it_when_forgotten_after_its_check_pass(
    forgotten: MemoryWriter, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The check pass matches the texts against the tombstones read before it; one
    # written after that (here: the first read sees none) is matched under the lock.
    real, reads = ingest_module.tombstones, []

    def late(store: GraphStore, ns: str) -> Tombstones:
        reads.append(ns)
        return Tombstones() if len(reads) == 1 else real(store, ns)

    monkeypatch.setattr(ingest_module, "tombstones", late)
    corpus = parse_corpus(
        {"contents": [{"id": "c0", "text": "Something else."}, {"id": "c1", "text": SECRET}]}
    )
    with pytest.raises(WriteRefused, match="record 1: identical text was forgotten"):
        ingest(forgotten.store, corpus, forgotten.ns, principal=ANA, audit=forgotten.audit)
    assert len(reads) == 2


def test_import_refuses_it(
    store: GraphStore, forgotten: MemoryWriter, ns: str, tmp_path: Path, audit_log_path: Path
) -> None:
    source = f"{ns}-src"
    try:
        other = MemoryWriter(store, source, AuditLog(audit_log_path))
        other.remember(SECRET + " ", principal=ANA)
        path = tmp_path / "memories.json"
        export_memories(store, source, path, scopes=["shared"])
        assert SECRET in json.loads(path.read_text())["memories"][0]["text"]
        with pytest.raises(WriteRefused, match="identical text was forgotten"):
            import_memories(store, ns, path, principal=ANA, audit=forgotten.audit)
    finally:
        store.run("delete_namespace", {"ns": source})
