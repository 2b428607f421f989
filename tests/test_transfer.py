"""Export and import: one file format, validated whole before anything is written.

Runs on every reachable engine (the ``store``/``ns`` fixtures); the command line
on the embedded FalkorDB.
"""

from __future__ import annotations

import itertools
import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mragent.apps.transfer import export
from mragent.apps.transfer.export import export_memories
from mragent.apps.transfer.file import FORMAT, TransferFileError, read_memories_file
from mragent.apps.transfer.importer import import_memories
from mragent.cli import app
from mragent.core.corpus import load_corpus
from mragent.core.embedding import HashingEmbedder
from mragent.core.errors import ConfigError, CorpusError, EmbeddingMismatch, WriteRefused
from mragent.core.genome import load_genome
from mragent.core.store import open_store
from mragent.core.store.base import GraphStore
from mragent.core.view import ReadView
from mragent.memory.audit import AuditLog
from mragent.memory.audit_records import read_records
from mragent.memory.ingest import namespace_stats
from mragent.memory.principal import Principal
from mragent.memory.reader import MemoryReader
from mragent.memory.records import MemoryRecord
from mragent.memory.writer import MemoryWriter
from tests.fixtures import CHAIN, ingest

ANA = Principal("human", "ana")
BOB = Principal("human", "bob")
BOT = Principal("agent", "bot")
runner = CliRunner()


@dataclass(frozen=True)
class Written:
    """Ids of what :func:`populate` wrote."""

    acme: str  # corrected: superseded by acme2
    acme2: str
    roe: str  # by an agent, accepted by a reviewer, depends on acme2
    rumor: str  # rejected
    follow: str  # depends on rumor: demoted to pending by the rejection
    vault: str  # forgotten
    basel: str  # depends on vault
    douro: str  # purged


def populate(store: GraphStore, ns: str, log: AuditLog) -> Written:
    """Every kind of write: remember, correct, accept, reject, depends, forget, purge."""
    clock = itertools.count(1_700_000_000.0, 60.0)
    mem = MemoryWriter(store, ns, log, clock=lambda: next(clock))
    acme = mem.remember("Acme was founded by Jane Roe in 1990.", principal=ANA, title="Acme")
    acme2 = mem.correct(acme.id, "Acme was founded by Jane Roe in 1991.", principal=ANA)
    roe = mem.remember(
        "Jane Roe was born in Lisbon.", principal=BOT, title="Jane Roe", depends_on=[acme2.id]
    )
    mem.accept(roe.id, principal=BOB)
    rumor = mem.remember("Zeta Corp is about to buy Acme.", principal=BOT, title="Zeta Corp")
    follow = mem.remember(
        "Zeta Corp would then own the Acme brand.", principal=ANA, depends_on=[rumor.id]
    )
    mem.reject(rumor.id, principal=BOB)
    vault = mem.remember("The vault code of Orion Bank is 4711.", principal=ANA, title="Orion Bank")
    basel = mem.remember(
        "Orion Bank keeps its vault in Basel.", principal=ANA, title="Basel", depends_on=[vault.id]
    )
    mem.forget(vault.id, principal=ANA, reason="a secret")
    douro = mem.remember("Lisbon lies on the Douro.", principal=ANA, title="Lisbon river")
    mem.purge(douro.id, principal=ANA, reason="false")
    return Written(acme.id, acme2.id, roe.id, rumor.id, follow.id, vault.id, basel.id, douro.id)


def all_records(store: GraphStore, ns: str) -> dict[str, dict[str, Any]]:
    """Every version in the shared scope, tombstones included, edges sorted."""
    params = {"ns": ns, "scopes": ["shared"]}
    ids = [r["id"] for r in store.run("memory_ids", {**params, "include_forgotten": True})]
    rows = store.run("memory_records", {**params, "ids": ids})
    records = {}
    for row in rows:
        record = MemoryRecord.from_row(row).to_json()
        record["supersedes"], record["depends_on"] = (
            sorted(record["supersedes"]),
            sorted(record["depends_on"]),
        )
        records[record["id"]] = record
    return records


def recalled(store: GraphStore, ns: str, question: str, **view: Any) -> set[str]:
    memory = MemoryReader(store, ns, view=ReadView(**view))
    rec = memory.reconstruct(question, load_genome(None))
    return {item.candidate.id for item in rec.context.items}


def audit_actions(path: Path) -> list[str]:
    return [record.action for record in read_records(path)]


def anchors(store: GraphStore) -> dict[str, tuple[int, str]]:
    return {
        row["ns"]: (int(row["audit_seq"]), row["audit_head"])
        for row in store.run("namespaces", {})
        if row["audit_seq"] is not None
    }


@pytest.fixture
def other_ns(store: GraphStore) -> Iterator[str]:
    """A second fresh namespace (the import target), deleted afterwards."""
    name = f"t-{uuid.uuid4().hex[:12]}"
    yield name
    store.run("delete_namespace", {"ns": name})


@pytest.fixture
def log(audit_log_path: Path) -> AuditLog:
    return AuditLog(audit_log_path)


@pytest.fixture
def exported(store: GraphStore, ns: str, log: AuditLog, tmp_path: Path) -> tuple[Written, Path]:
    """The populated namespace exported with its tombstones."""
    written = populate(store, ns, log)
    path = tmp_path / "memories.json"
    export_memories(store, ns, path, scopes=["shared"], include_forgotten=True)
    return written, path


# -- round trip ------------------------------------------------------------------------


def test_round_trip_keeps_every_record_and_recall_works(
    store: GraphStore,
    ns: str,
    other_ns: str,
    log: AuditLog,
    exported: tuple[Written, Path],
) -> None:
    written, path = exported
    report = import_memories(store, other_ns, path, principal=ANA, audit=log)
    assert (report.records, report.written, report.skipped, report.forgotten) == (8, 8, 0, 2)
    assert report.edges == 4  # acme2->acme, roe->acme2, follow->rumor, basel->vault

    source, copy = all_records(store, ns), all_records(store, other_ns)
    assert copy == source  # ids, keys, trust, review, times, lineage, edges, tombstones
    assert copy[written.acme]["superseded_at"] is not None
    assert copy[written.acme2]["supersedes"] == [written.acme]
    assert copy[written.acme2]["lineage"] == written.acme
    assert (
        copy[written.roe]["trust"] == "accepted" and copy[written.roe]["reviewed_by"] == "human:bob"
    )
    assert copy[written.rumor]["trust"] == "rejected"
    assert copy[written.follow]["trust"] == "pending"
    assert copy[written.vault]["forgotten_at"] is not None
    assert copy[written.douro]["text"] is None and copy[written.douro]["purged_at"] is not None
    # The same contents, tags and references: tombstones add none. (Keyword cues and
    # their links are extracted again from the whole file, so their number may differ.)
    stats, original = namespace_stats(store, other_ns), namespace_stats(store, ns)
    for kind in ("contents", "tags", "refs"):
        assert stats[kind] == original[kind], kind

    assert written.roe in recalled(store, other_ns, "Where was Jane Roe born?")
    assert written.acme2 in recalled(store, other_ns, "Who founded Acme?")
    assert written.acme not in recalled(store, other_ns, "Who founded Acme?")
    pending = {"include_pending": True}
    assert written.vault not in recalled(
        store, other_ns, "What is the vault code of Orion Bank?", **pending
    )
    assert written.douro not in recalled(
        store, other_ns, "Which river does Lisbon lie on?", **pending
    )
    # What was believed before the correction is still there to read.
    before = recalled(store, other_ns, "Who founded Acme?", as_of=1_700_000_030.0)
    assert written.acme in before and written.acme2 not in before


def test_the_import_is_one_audit_record_and_the_log_verifies(
    store: GraphStore,
    ns: str,
    other_ns: str,
    log: AuditLog,
    audit_log_path: Path,
    exported: tuple[Written, Path],
) -> None:
    _, path = exported
    before = len(read_records(audit_log_path))
    import_memories(store, other_ns, path, principal=ANA, audit=log)
    new = read_records(audit_log_path)[before:]
    assert [(r.action, r.ns, r.target, r.principal) for r in new] == [
        ("import", other_ns, "memories.json", "human:ana")
    ]
    assert new[0].after == read_memories_file(path).digest
    assert new[0].detail is not None and new[0].detail["written"] == 8
    report = log.verify({k: v for k, v in anchors(store).items() if k in (ns, other_ns)})
    assert report.ok, report.problems
    assert not report.warnings


def test_small_pages_give_the_same_import(
    store: GraphStore,
    ns: str,
    other_ns: str,
    log: AuditLog,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Reads, existence checks and writes go in pages; pages of 2 cross every boundary.
    monkeypatch.setattr(export, "PAGE", 2)
    populate(store, ns, log)
    path = tmp_path / "paged.json"
    assert export_memories(store, ns, path, scopes=["shared"], include_forgotten=True).memories == 8
    report = import_memories(store, other_ns, path, principal=ANA, audit=log)
    assert report.written == 8 and report.edges == 4
    assert all_records(store, other_ns) == all_records(store, ns)


def test_scopes_travel_with_their_memories(
    store: GraphStore, ns: str, other_ns: str, log: AuditLog, tmp_path: Path
) -> None:
    mem = MemoryWriter(store, ns, log)
    team = mem.remember("The team meets on Mondays in Porto.", principal=ANA, scope="team")
    shared = mem.remember("The office is in Porto.", principal=ANA)
    path = tmp_path / "both.json"
    export_memories(store, ns, path, scopes=["shared", "team"])
    assert import_memories(store, other_ns, path, principal=ANA, audit=log).written == 2
    copy = MemoryWriter(store, other_ns, log)
    assert copy.get(team.id, "team").scope == "team"
    with pytest.raises(WriteRefused):
        copy.get(team.id, "shared")
    seen = recalled(store, other_ns, "Where is the office?", scopes=("shared",))
    assert shared.id in seen and team.id not in seen


# -- export ----------------------------------------------------------------------------


def test_export_leaves_out_forgotten_memories_unless_asked(
    store: GraphStore, ns: str, log: AuditLog, tmp_path: Path
) -> None:
    written = populate(store, ns, log)
    path = tmp_path / "live.json"
    report = export_memories(store, ns, path, scopes=["shared"])
    data = json.loads(path.read_text())
    ids = [m["id"] for m in data["memories"]]
    assert data["format"] == FORMAT and data["ns"] == ns and data["include_forgotten"] is False
    assert data["embedder"] == HashingEmbedder().identity.as_text()
    assert written.vault not in ids and written.douro not in ids
    assert report.memories == len(ids) == 6 and report.forgotten == 0
    # basel's dependency on the forgotten vault is dropped, so the file stands alone.
    basel = next(m for m in data["memories"] if m["id"] == written.basel)
    assert basel["depends_on"] == [] and report.dropped_references == 1
    # Oldest first.
    times = [m["recorded_at"] for m in data["memories"]]
    assert times == sorted(times)

    full = export_memories(
        store, ns, tmp_path / "all.json", scopes=["shared"], include_forgotten=True
    )
    assert full.memories == 8 and full.forgotten == 2 and full.dropped_references == 0
    assert not list(tmp_path.glob(".*.tmp"))  # the temporary file was renamed


def test_an_export_without_tombstones_imports_without_them(
    store: GraphStore, ns: str, other_ns: str, log: AuditLog, tmp_path: Path
) -> None:
    written = populate(store, ns, log)
    path = tmp_path / "live.json"
    export_memories(store, ns, path, scopes=["shared"])
    report = import_memories(store, other_ns, path, principal=ANA, audit=log)
    assert report.written == 6 and report.forgotten == 0
    copy = all_records(store, other_ns)
    assert written.vault not in copy and copy[written.basel]["depends_on"] == []


def test_export_reads_only_the_scopes_asked(
    store: GraphStore, ns: str, log: AuditLog, tmp_path: Path
) -> None:
    mem = MemoryWriter(store, ns, log)
    team = mem.remember("The team meets on Mondays.", principal=ANA, scope="team")
    shared = mem.remember("The office is in Porto.", principal=ANA)
    report = export_memories(store, ns, tmp_path / "team.json", scopes=["team"])
    data = json.loads((tmp_path / "team.json").read_text())
    assert [m["id"] for m in data["memories"]] == [team.id] and report.scopes == ("team",)
    assert shared.id not in json.dumps(data)


# -- refusals: nothing written ---------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [b"", b"{not json", b"[1, 2]", b'{"format": "something-else/1"}', b"\xff\xfe"],
    ids=["empty", "malformed", "list", "other-format", "not-utf8"],
)
def test_a_corrupt_file_is_moved_aside_and_nothing_written(
    store: GraphStore,
    other_ns: str,
    log: AuditLog,
    audit_log_path: Path,
    tmp_path: Path,
    content: bytes,
) -> None:
    path = tmp_path / "memories.json"
    path.write_bytes(content)
    (tmp_path / "memories.json.corrupt-1").write_bytes(b"an older one")
    with pytest.raises(TransferFileError, match=r"moved aside to .*memories\.json\.corrupt-2"):
        import_memories(store, other_ns, path, principal=ANA, audit=log)
    assert not path.exists()
    assert (tmp_path / "memories.json.corrupt-2").read_bytes() == content
    assert store.run("get_space", {"ns": other_ns}) == []
    assert not audit_log_path.exists()


def _edit(path: Path, index: int, **changes: Any) -> None:
    data = json.loads(path.read_text())
    data["memories"][index].update(changes)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"trust": "maybe"}, r"record 3: trust: Input should be"),
        ({"text": "Jane Roe was born in Porto."}, r"record 3: hash: does not match"),
        ({"depends_on": ["no-such-id"]}, r"record 3: depends_on: 'no-such-id' is not in the file"),
        ({"principal": "nobody"}, r"record 3: principal 'nobody'"),
        ({"scope": "elsewhere"}, r"record 3: scope 'elsewhere' is not one of the file's scopes"),
        ({"text": None}, r"record 3: text: missing"),
        ({"surprise": 1}, r"record 3: surprise: Extra inputs"),
    ],
    ids=["trust", "hash", "reference", "principal", "scope", "text", "extra"],
)
def test_one_bad_record_writes_nothing_and_is_named(
    store: GraphStore,
    other_ns: str,
    log: AuditLog,
    audit_log_path: Path,
    exported: tuple[Written, Path],
    changes: dict[str, Any],
    message: str,
) -> None:
    _, path = exported
    _edit(path, 3, **changes)
    before = len(read_records(audit_log_path))
    with pytest.raises(CorpusError, match=message) as caught:
        import_memories(store, other_ns, path, principal=ANA, audit=log)
    assert str(caught.value).startswith(str(path))
    assert path.exists()  # a well-formed file with a bad record stays where it is
    assert store.run("get_space", {"ns": other_ns}) == []
    assert len(read_records(audit_log_path)) == before


def test_a_duplicate_id_is_named(
    store: GraphStore, other_ns: str, log: AuditLog, exported: tuple[Written, Path]
) -> None:
    _, path = exported
    data = json.loads(path.read_text())
    data["memories"].append(data["memories"][1])
    path.write_text(json.dumps(data))
    with pytest.raises(CorpusError, match=r"record 8: duplicate id .* \(record 1\)"):
        import_memories(store, other_ns, path, principal=ANA, audit=log)


def test_a_mismatched_embedder_is_refused_naming_both(
    store: GraphStore, ns: str, other_ns: str, log: AuditLog, exported: tuple[Written, Path]
) -> None:
    _, path = exported
    small = HashingEmbedder(64)
    MemoryWriter(store, other_ns, log, embedder=small).remember(
        "Porto is in Portugal.", principal=ANA
    )
    theirs, mine = small.identity.as_text(), HashingEmbedder().identity.as_text()
    with pytest.raises(EmbeddingMismatch) as caught:
        import_memories(store, other_ns, path, principal=ANA, audit=log)
    assert theirs in str(caught.value) and mine in str(caught.value)
    with pytest.raises(EmbeddingMismatch, match=r"exported with embedder .*256.* with .*:64:"):
        import_memories(store, ns, path, principal=ANA, audit=log, embedder=small)
    assert len(all_records(store, other_ns)) == 1


def test_replace_needs_confirmation(
    store: GraphStore, ns: str, log: AuditLog, exported: tuple[Written, Path]
) -> None:
    _, path = exported
    before = all_records(store, ns)
    with pytest.raises(ConfigError, match="--yes"):
        import_memories(store, ns, path, principal=ANA, audit=log, mode="replace")
    assert all_records(store, ns) == before


def test_an_agent_cannot_import_trust_states(
    store: GraphStore, other_ns: str, log: AuditLog, exported: tuple[Written, Path]
) -> None:
    _, path = exported
    with pytest.raises(WriteRefused, match="agent:bot"):
        import_memories(store, other_ns, path, principal=BOT, audit=log)
    assert store.run("get_space", {"ns": other_ns}) == []


def test_a_key_held_by_another_id_is_refused(
    store: GraphStore, ns: str, other_ns: str, log: AuditLog, tmp_path: Path
) -> None:
    # The same corpus ingested twice gets the same keys but new ids: merging one
    # export into the other would fold two versions into one node, so it is refused.
    ingest(store, load_corpus(corpus_path(tmp_path)), ns)
    path = tmp_path / "chain-export.json"
    export_memories(store, ns, path, scopes=["shared"])
    report = import_memories(store, other_ns, path, principal=ANA, audit=log)
    assert report.written == 4 and all_records(store, other_ns) == all_records(store, ns)
    store.run("delete_namespace", {"ns": other_ns})
    ingest(store, load_corpus(corpus_path(tmp_path)), other_ns)
    with pytest.raises(WriteRefused, match=r"record 0: key '\w+' is held .* by another id"):
        import_memories(store, other_ns, path, principal=ANA, audit=log)


def corpus_path(tmp_path: Path) -> Path:
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(CHAIN))
    return path


# -- merge and replace -----------------------------------------------------------------


def test_merge_skips_existing_ids(
    store: GraphStore, ns: str, other_ns: str, log: AuditLog, exported: tuple[Written, Path]
) -> None:
    _, path = exported
    mem = MemoryWriter(store, other_ns, log)
    own = mem.remember("Porto is in Portugal.", principal=ANA)
    first = import_memories(store, other_ns, path, principal=ANA, audit=log)
    assert (first.written, first.skipped) == (8, 0)
    again = import_memories(store, other_ns, path, principal=ANA, audit=log)
    assert (again.written, again.skipped) == (0, 8)
    copy = all_records(store, other_ns)
    assert set(copy) == set(all_records(store, ns)) | {own.id}
    # Back into its own namespace: everything is there already.
    home = import_memories(store, ns, path, principal=ANA, audit=log)
    assert (home.written, home.skipped) == (0, 8)


def test_merge_resolves_references_in_the_namespace(
    store: GraphStore, ns: str, other_ns: str, log: AuditLog, tmp_path: Path
) -> None:
    mem = MemoryWriter(store, ns, log)
    base = mem.remember("Acme sells anvils.", principal=ANA, title="Acme")
    later = mem.remember("Acme anvils are heavy.", principal=ANA, depends_on=[base.id])
    path = tmp_path / "later.json"
    export_memories(store, ns, path, scopes=["shared"])
    data = json.loads(path.read_text())
    data["memories"] = [m for m in data["memories"] if m["id"] == later.id]
    path.write_text(json.dumps(data))
    # Into a namespace that lacks the dependency: refused, naming it.
    with pytest.raises(CorpusError, match=rf"record 0: depends_on: '{base.id}' is not in"):
        import_memories(store, other_ns, path, principal=ANA, audit=log)
    # Into one that holds it (the dependency is in the namespace, the rest in the file).
    MemoryWriter(store, other_ns, log).remember("Porto is in Portugal.", principal=ANA)
    full = tmp_path / "base.json"
    export_memories(store, ns, full, scopes=["shared"])
    base_only = json.loads(full.read_text())
    base_only["memories"] = [m for m in base_only["memories"] if m["id"] == base.id]
    full.write_text(json.dumps(base_only))
    import_memories(store, other_ns, full, principal=ANA, audit=log)
    report = import_memories(store, other_ns, path, principal=ANA, audit=log)
    assert report.written == 1 and report.edges == 1
    assert all_records(store, other_ns)[later.id]["depends_on"] == [base.id]


def test_replace_deletes_the_files_scopes_first(
    store: GraphStore, ns: str, other_ns: str, log: AuditLog, exported: tuple[Written, Path]
) -> None:
    written, path = exported
    mem = MemoryWriter(store, other_ns, log)
    gone = mem.remember("Porto is in Portugal.", principal=ANA)
    kept = mem.remember("The team meets on Mondays.", principal=ANA, scope="team")
    report = import_memories(
        store, other_ns, path, principal=ANA, audit=log, mode="replace", confirm_replace=True
    )
    assert report.written == 8 and report.deleted > 0
    assert all_records(store, other_ns) == all_records(store, ns)
    assert gone.id not in all_records(store, other_ns)
    assert (
        MemoryWriter(store, other_ns, log).get(kept.id, "team").text == "The team meets on Mondays."
    )
    assert written.roe in recalled(store, other_ns, "Where was Jane Roe born?")
    assert namespace_stats(store, other_ns)["contents"] == 9


# -- command line ----------------------------------------------------------------------


def test_cli_round_trip(falkordb_url: str, tmp_path: Path, audit_log_path: Path) -> None:
    source, target = f"t-{uuid.uuid4().hex[:12]}", f"t-{uuid.uuid4().hex[:12]}"
    db = ("--db", falkordb_url)
    try:
        with open_store(falkordb_url) as store:
            written = populate(store, source, AuditLog(audit_log_path))
        path = tmp_path / "memories.json"
        result = runner.invoke(app, ["export", str(path), "--ns", source, *db])
        assert result.exit_code == 0, result.output
        assert "exported 6 memory version(s) (0 forgotten)" in result.output
        result = runner.invoke(
            app, ["export", str(path), "--ns", source, "--include-forgotten", *db]
        )
        assert "exported 8 memory version(s) (2 forgotten)" in result.output

        args = ["import", str(path), "--ns", target, *db]
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and "--principal is required" in result.output
        result = runner.invoke(app, [*args, "--principal", "agent:bot"])
        assert result.exit_code == 3 and "refused" in result.output
        result = runner.invoke(app, [*args, "--principal", "human:ana"])
        assert result.exit_code == 0, result.output
        assert (
            "imported 8 memory version(s)" in result.output and "0 already present" in result.output
        )
        result = runner.invoke(app, [*args, "--principal", "human:ana", "--mode", "replace"])
        assert result.exit_code == 2 and "--yes" in result.output
        result = runner.invoke(
            app, [*args, "--principal", "human:ana", "--mode", "replace", "--yes"]
        )
        assert result.exit_code == 0, result.output
        assert "deleted first" in result.output

        recall = runner.invoke(app, ["recall", "Where was Jane Roe born?", "--ns", target, *db])
        assert recall.exit_code == 0 and written.roe in recall.output
        verify = runner.invoke(app, ["audit", "verify", "--ns", target, *db])
        assert verify.exit_code == 0, verify.output

        path.write_text("{torn")
        result = runner.invoke(app, [*args, "--principal", "human:ana"])
        assert result.exit_code == 2
        assert "moved aside to" in result.output and (tmp_path / "memories.json.corrupt-1").exists()
    finally:
        with open_store(falkordb_url) as store:
            for name in (source, target):
                store.run("delete_namespace", {"ns": name})


def test_purge_erases_the_text_and_keeps_every_other_property(
    store: GraphStore, other_ns: str, log: AuditLog, exported: tuple[Written, Path]
) -> None:
    # Imported versions carry their properties in another order than remembered ones;
    # purging must touch only the text and the words taken from it (title, source,
    # given tags and cues) on either.
    written, path = exported
    import_memories(store, other_ns, path, principal=ANA, audit=log)
    memories = MemoryWriter(store, other_ns, log)
    remembered = memories.remember("Porto lies on the Douro.", principal=ANA, title="Porto").id
    for target in (written.basel, remembered):
        memories.forget(target, principal=ANA, reason="test")
        before = all_records(store, other_ns)[target]
        memories.purge(target, principal=ANA, reason="test")
        after = all_records(store, other_ns)[target]
        changed = {key for key in before if before[key] != after[key]}
        assert {"text", "purged_at"} <= changed
        assert changed <= {"text", "title", "source", "given_tags", "given_cues", "purged_at"}
        assert after["text"] is None and after["title"] in ("", None)
