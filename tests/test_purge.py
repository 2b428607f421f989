"""``purge`` erases the text everywhere mragent writes it or causes it to be written.

On an embedded FalkorDB of its own, with the worst case switched on (query
telemetry, which an external server may keep, and uncompressed snapshots, so a
grep can see inside them), a memory is written, recalled and explained with a
persisted trace, then purged. Afterwards no file under the data directory (the
AOF, the RDB snapshot, the config, the logs, the audit log) and no node or
edge property holds its text or its distinctive word. On Neo4j the database
check runs too (its transaction logs are its own; see the README).
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
import redis

from mragent.apps.views.explain import build_trace
from mragent.apps.views.trace_store import list_traces, persist_trace
from mragent.core.genome import Genome
from mragent.core.store import embedded, open_store
from mragent.core.store.base import GraphStore
from mragent.memory.audit import AuditLog
from mragent.memory.principal import Principal
from mragent.memory.reader import MemoryReader
from mragent.memory.writer import MemoryWriter

ANA = Principal("human", "ana")


def _marker() -> str:
    return f"Zqx{uuid.uuid4().hex[:10]}"


def _leftovers(store: GraphStore, needle: str) -> list[str]:
    """Every node and edge property anywhere in the graph that holds ``needle``."""
    found = []
    rows = store._execute(
        "probe",
        "MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN properties(n) AS n, "
        "collect(properties(r)) AS r",
        {},
    )
    for row in rows:
        for props in [row["n"], *row["r"]]:
            for key, value in (props or {}).items():
                if needle.lower() in str(value).lower():
                    found.append(f"{key}={str(value)[:60]}")
    return found


def _remember_use_and_purge(store: GraphStore, ns: str, audit: AuditLog, word: str) -> None:
    mem = MemoryWriter(store, ns, audit)
    mem.remember("Acme keeps its archive in Lisbon.", principal=ANA, title="Acme")
    text = f"The vault of Acme opens with the word {word}."
    secret = mem.remember(text, principal=ANA, title=f"{word} vault", source=f"note {word}")
    question = f"What opens the vault of Acme? Is it {word}?"
    memory = MemoryReader(store, ns)
    assert text in memory.reconstruct(question, Genome()).context.text
    persist_trace(store, build_trace(memory, question, Genome()))
    assert list_traces(store, ns)
    mem.purge(secret.id, principal=ANA, reason="a secret")
    assert mem.get(secret.id).text is None


def test_purge_leaves_no_copy_in_the_data_directory(tmp_path: Path) -> None:
    home = tmp_path / "home"
    server = embedded.ensure_running(home)
    client = redis.Redis(port=server.port, password=server.password)
    try:
        # Worst case: snapshots a grep can read, and query telemetry on (as an
        # external FalkorDB may have it; the embedded one starts with it off).
        client.config_set("rdbcompression", "no")
        client.execute_command("GRAPH.CONFIG", "SET", "CMD_INFO", "yes")
        client.execute_command("GRAPH.CONFIG", "SET", "MAX_INFO_QUERIES", "1000")
        word = _marker()
        audit = AuditLog(home / "audit.jsonl")
        with open_store(None, home=home) as store:
            _remember_use_and_purge(store, "vault", audit, word)
            assert _leftovers(store, word) == []
        slowlog = client.execute_command("GRAPH.SLOWLOG", "mragent")
        assert word.encode() not in repr(slowlog).encode()
        for key in client.scan_iter("*"):
            kind = client.type(key)
            if kind == b"stream":
                entries = client.xrange(key)
                assert word.encode() not in repr(entries).encode(), key
        hits = [
            str(path.relative_to(home))
            for path in home.rglob("*")
            if path.is_file() and word.lower().encode() in path.read_bytes().lower()
        ]
        assert hits == []
        # The data is on disk: the rewritten files hold the rest of the memory.
        assert any(b"archive in Lisbon" in p.read_bytes() for p in home.rglob("*") if p.is_file())
    finally:
        embedded.stop(home)


def test_purge_erases_every_property_holding_the_text(store: GraphStore, ns: str) -> None:
    if store.capabilities.engine == "memgraph":
        pytest.skip("properties() over the whole graph: checked on FalkorDB and Neo4j")
    word = _marker()
    _remember_use_and_purge(store, ns, AuditLog(), word)
    assert _leftovers(store, word) == []
