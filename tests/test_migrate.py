"""Namespaces written before provenance existed: refused until migrated, then whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from mragent.apps.migrate import migrate_namespace
from mragent.core.corpus import parse_corpus
from mragent.core.errors import LegacyNamespace
from mragent.core.genome import Genome
from mragent.core.store.base import GraphStore
from mragent.memory.audit import AuditLog
from mragent.memory.audit_records import read_records
from mragent.memory.ingest import namespace_stats, text_hash
from mragent.memory.principal import Principal
from mragent.memory.reader import MemoryReader
from mragent.memory.writer import MemoryWriter
from tests.fixtures import CHAIN, ingest

ANA = Principal("human", "ana")

# What an earlier mragent left: no schema mark, no scopes, contents without provenance.
_LEGACY_CONTENT = (
    "scope", "principal", "trust", "trust_at", "trust_log", "trust_since",
    "recorded_at", "valid_from", "lineage", "hash",
)  # fmt: skip
_STRIP = (
    "MATCH (s:MemorySpace) WHERE s.ns = $ns SET s.schema = null",
    "MATCH (n:Cue) WHERE n.ns = $ns SET n.scope = null",
    "MATCH (n:Tag) WHERE n.ns = $ns SET n.scope = null",
    # One removal per statement: FalkorDB 4.16 removes the wrong properties otherwise.
    *(f"MATCH (m:Content) WHERE m.ns = $ns SET m.{name} = null" for name in _LEGACY_CONTENT),
)


def _legacy(store: GraphStore, ns: str) -> None:
    ingest(store, parse_corpus(CHAIN), ns)
    for statement in _STRIP:
        store._execute("legacy", statement, {"ns": ns})


def test_a_legacy_namespace_is_refused_then_migrated(
    store: GraphStore, ns: str, audit_log_path: Path
) -> None:
    _legacy(store, ns)
    with pytest.raises(LegacyNamespace, match="mragent migrate"):
        MemoryReader(store, ns)
    with pytest.raises(LegacyNamespace):
        ingest(store, parse_corpus(CHAIN), ns)

    before = namespace_stats(store, ns)
    report = migrate_namespace(store, ns, principal=ANA, audit=AuditLog(audit_log_path))
    assert (report.contents, report.hashed) == (4, 4) and report.changed
    assert report.cues == before["cues"] and report.tags == before["tags"]
    assert namespace_stats(store, ns) == before  # nothing lost, nothing added

    memory = MemoryReader(store, ns)
    keys = [
        r.candidate.key
        for r in memory.reconstruct(
            "Where does Acme's founder live?", Genome(traversalDepth=3)
        ).ranked
    ]
    assert "lisbon" in keys
    records = MemoryWriter(store, ns, AuditLog(audit_log_path)).records(
        [row["id"] for row in memory.snapshot()]
    )
    assert len(records) == 4
    for record in records:
        assert record.hash == text_hash(record.text or "")
        assert (record.trust, record.principal, record.scope) == ("accepted", str(ANA), "shared")
        assert record.lineage == record.id and record.trust_log == ["accepted"]
    assert [r.action for r in read_records(audit_log_path)][-1] == "migrate"

    again = migrate_namespace(store, ns, principal=ANA, audit=AuditLog(audit_log_path))
    assert not again.changed
