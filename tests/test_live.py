"""The live read path on every engine: versions, the change feed, persisted indexes,
ranks over visible edges, and readers that live across writes."""

from __future__ import annotations

import os
import shutil
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mragent.apps.synthetic import generate
from mragent.apps.transfer.export import export_memories
from mragent.apps.transfer.importer import import_memories
from mragent.core.corpus import parse_corpus
from mragent.core.genome import PRESETS, Genome
from mragent.core.retrieval.cue_search import CueHit
from mragent.core.retrieval.reconstruct import traverse
from mragent.core.store.base import GraphStore
from mragent.core.string_arrays import PackedStrings
from mragent.core.view import ReadView
from mragent.memory import live_index
from mragent.memory import reader as reader_module
from mragent.memory.audit import AuditLog
from mragent.memory.principal import Principal
from mragent.memory.reader import MemoryReader
from mragent.memory.writer import MemoryWriter
from tests.fixtures import CHAIN, feed_page, ingest

pytestmark = pytest.mark.backend

ANA = Principal("human", "ana")
BOB = Principal("human", "bob")
SCOUT = Principal("agent", "scout")
GENOME = PRESETS["default"]
FACT = "The Lyra observatory is directed by Mara Voss."
QUESTION = "Who directs the Lyra observatory?"


def _clock(start: float = 1_000_000.0) -> Callable[[], float]:
    ticks = iter(range(10_000))
    return lambda: start + 60.0 * next(ticks)


@pytest.fixture
def memories(store: GraphStore, ns: str, audit_log_path: Path) -> MemoryWriter:
    return MemoryWriter(store, ns, AuditLog(audit_log_path), clock=_clock())


def _version(store: GraphStore, ns: str) -> int:
    return int(store.run("get_space", {"ns": ns})[0]["version"])


def _context(memory: MemoryReader, question: str = QUESTION, genome: Genome = GENOME) -> str:
    return memory.reconstruct(question, genome).context.text


class _Counting:
    """Counts the named queries a store runs (the store itself answers them)."""

    def __init__(self, store: GraphStore) -> None:
        self.store, self.calls = store, []
        self._run = store.run

    def __enter__(self) -> list[tuple[str, dict[str, Any]]]:
        def run(name: str, params: dict[str, Any] | None = None, **render: Any) -> Any:
            self.calls.append((name, dict(params or {})))
            return self._run(name, params, **render)

        self.store.run = run  # type: ignore[method-assign]
        return self.calls

    def __exit__(self, *exc: object) -> None:
        self.store.run = self._run  # type: ignore[method-assign]


# --- versions --------------------------------------------------------------------------


def test_every_write_bumps_the_version_and_stamps_what_it_changed(
    memories: MemoryWriter, store: GraphStore, ns: str
) -> None:
    first = memories.remember(FACT, principal=SCOUT)
    steps: list[tuple[str, Callable[[], Any], str | None]] = [
        ("accept", lambda: memories.accept(first.id, principal=ANA), first.id),
        ("trust", lambda: memories.set_trust(SCOUT, principal=ANA, trusted=True), None),
        ("correct", lambda: memories.correct(first.id, FACT + " Since 1999.", principal=BOB), None),
        ("reject", lambda: memories.reject(first.id, principal=ANA), first.id),
        ("forget", lambda: memories.forget(first.id, principal=ANA, reason="test"), first.id),
        ("purge", lambda: memories.purge(first.id, principal=ANA, reason="test"), first.id),
    ]
    for action, write, changed in steps:
        before = _version(store, ns)
        write()
        after = _version(store, ns)
        assert after > before, action
        feed = feed_page(store, "index_contents", ns, since=before, vectors=True)
        assert all(row["v"] > before for row in feed), action
        if changed:
            assert changed in {row["id"] for row in feed}, action
    space = store.run("get_space", {"ns": ns})[0]
    assert space["purged_v"] > 0 and space["uid"]


# --- a reader that lives across writes ------------------------------------------------------


def test_a_write_is_reflected_by_the_next_recall(
    memories: MemoryWriter, store: GraphStore, ns: str
) -> None:
    memories.remember("The Perseus bridge was built by Anton Weiss.", principal=ANA)
    reader = MemoryReader(store, ns)
    assert "Mara Voss" not in _context(reader)
    memories.remember(FACT, principal=ANA)
    with _Counting(store) as calls:
        assert "Mara Voss" in _context(reader)
    names = [name for name, _ in calls]
    # The first round trip saw a newer version; the reader read only what changed since.
    assert names.count("traverse") == 2 and reader.version == _version(store, ns)
    assert all(params["since"] >= 0 for name, params in calls if name.startswith("index_"))
    lineage = memories.remember(FACT + " Twice.", principal=ANA)
    memories.forget(lineage.id, principal=ANA, reason="test")
    assert "Twice" not in _context(reader)


def test_a_reader_opened_before_a_change_never_returns_what_it_hides(
    memories: MemoryWriter, store: GraphStore, ns: str
) -> None:
    old = memories.remember(FACT, principal=ANA)
    agent = memories.remember("The Vega ferry is captained by Nadia Okafor.", principal=SCOUT)
    ferry = "Who captains the Vega ferry?"
    readers = [
        MemoryReader(store, ns),
        MemoryReader(store, ns, view=ReadView(include_pending=True)),
    ]
    # The controls: before the changes each reader finds what it may see.
    assert "Mara Voss" in _context(readers[0]) and "Nadia Okafor" in _context(readers[1], ferry)

    new = memories.correct(
        old.id, "The Lyra observatory is directed by Ilse Kruger.", principal=ANA
    )
    memories.reject(agent.id, principal=ANA)
    memories.remember("The Draco mine is managed by Pavel Lindqvist.", principal=ANA, scope="x")
    for reader in readers:
        assert "Mara Voss" not in _context(reader) and "Ilse Kruger" in _context(reader)
        assert "Nadia Okafor" not in _context(reader, ferry)
        assert "Pavel Lindqvist" not in _context(reader, "Who manages the Draco mine?")
    memories.forget(new.id, principal=ANA, reason="test")
    for reader in readers:
        assert "Ilse Kruger" not in _context(reader)
        cues = reader.index.cues
        # The cues only the forgotten memory gave rise to were deleted: the reader dropped them.
        assert not any("Kruger" in cues.texts[s] for s in cues.live.nonzero()[0])


def test_a_scope_replaced_after_the_reader_opened_is_read_as_it_is_now(
    memories: MemoryWriter, store: GraphStore, ns: str, audit_log_path: Path, tmp_path: Path
) -> None:
    memories.remember("The team meets in the Orion room.", principal=ANA, scope="team")
    reader = MemoryReader(store, ns, view=ReadView(scopes=("shared", "team")))
    question = "Which room does the team meet in?"
    assert "Orion" in _context(reader, question)  # the control
    source = f"{ns}-source"
    audit = AuditLog(audit_log_path)
    try:
        MemoryWriter(store, source, audit, clock=_clock()).remember(
            "The team meets in the Lynx room.", principal=ANA, scope="team"
        )
        path = tmp_path / "team.json"
        export_memories(store, source, path, scopes=["team"])
        import_memories(
            store, ns, path, principal=ANA, audit=audit, mode="replace", confirm_replace=True
        )
    finally:
        store.run("delete_namespace", {"ns": source})
    text = _context(reader, question)
    assert "Orion" not in text and "Lynx" in text


def test_a_deleted_and_rewritten_namespace_is_read_from_scratch(store: GraphStore, ns: str) -> None:
    ingest(store, parse_corpus(CHAIN), ns)
    reader = MemoryReader(store, ns)
    uid = reader.index.uid
    store.run("delete_namespace", {"ns": ns})
    data = {"contents": [{"id": "mars", "title": "Mars", "text": "Mars has two moons."}]}
    ingest(store, parse_corpus(data), ns)
    rec = reader.reconstruct("How many moons has Mars?", GENOME)
    assert reader.index.uid != uid and "two moons" in rec.context.text
    assert "Lisbon" not in rec.context.text and len(reader.index.passages) == 1


# --- persisted indexes ---------------------------------------------------------------------


def test_a_new_process_loads_the_saved_index_and_reads_only_the_delta(
    memories: MemoryWriter, store: GraphStore, ns: str, index_dir: Path
) -> None:
    ingest(store, parse_corpus(CHAIN), ns)
    first = MemoryReader(store, ns)
    question = "Where was the founder of Acme born?"
    expected = first.reconstruct(question, GENOME).retrieved_keys
    saved = [p for p in index_dir.rglob("*") if p.is_file()]
    names = {p.name for p in saved}
    assert {"meta.json", "cues.live.npy", "contents.ids_utf8.npy", "hnsw.bin"} <= names
    assert all(stat.S_IMODE(os.stat(p).st_mode) == 0o600 for p in saved)
    assert all(
        stat.S_IMODE(os.stat(p).st_mode) == 0o700 for p in index_dir.rglob("*") if p.is_dir()
    )
    assert not any(b"was born in Lisbon" in p.read_bytes() for p in saved)  # no content text

    with _Counting(store) as calls:
        second = MemoryReader(store, ns)
    assert not [name for name, _ in calls if name.startswith("index_")]  # nothing to read
    assert second.reconstruct(question, GENOME).retrieved_keys == expected

    memories.remember("Acme opened an office in Porto.", principal=ANA)
    with _Counting(store) as calls:
        third = MemoryReader(store, ns)
    feeds = [params for name, params in calls if name.startswith("index_")]
    assert feeds and all(params["since"] == first.version for params in feeds)
    assert "Porto" in _context(third, "Where did Acme open an office?")


def test_a_reader_loaded_from_its_copy_answers_as_one_built_from_the_database(
    memories: MemoryWriter, store: GraphStore, ns: str, index_dir: Path, tmp_path: Path
) -> None:
    """A loaded copy keeps its strings packed and looks ids and cue texts up in saved
    key orders; every answer, before and after later writes, is the built reader's."""
    memory = generate(300)
    ingest(store, memory, ns)
    MemoryReader(store, ns)  # builds and saves the copy
    questions = [q.question for q in memory.questions[:25]]
    first = memories.remember("Acme opened an office in Porto.", principal=ANA)
    memories.forget(first.id, principal=ANA, reason="test")
    memories.remember("The Perseus bridge was built by Anton Weiss.", principal=ANA)
    loaded = MemoryReader(store, ns)  # the copy, brought forward by the change feed
    built = MemoryReader(store, ns, index_dir=tmp_path / "empty")
    assert loaded.index.version == built.index.version
    assert isinstance(loaded.index.passages.ids, PackedStrings)
    assert isinstance(built.index.passages.ids, list)
    for question in [*questions, "Who built the Perseus bridge?"]:
        got, want = loaded.reconstruct(question, GENOME), built.reconstruct(question, GENOME)
        assert got.retrieved_keys == want.retrieved_keys, question
        assert got.context.text == want.context.text, question


def test_passage_scoring_beside_cue_search_answers_as_scoring_in_line(
    store: GraphStore, ns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From BESIDE_MIN contents a question's passages are scored in a worker thread
    while its cues are searched; the candidates and answers are the in-line ones."""
    memory = generate(300)
    ingest(store, memory, ns)
    reader = MemoryReader(store, ns)
    questions = [q.question for q in memory.questions[:25]]

    def answers() -> list[tuple[list[CueHit], list[str]]]:
        return [
            (reader.candidates(q, GENOME)[0], reader.reconstruct(q, GENOME).retrieved_keys)
            for q in questions
        ]

    in_line = answers()
    threads: list[str] = []
    entry = reader.index.passages.entry

    def watched(*args: Any) -> Any:
        threads.append(threading.current_thread().name)
        return entry(*args)

    monkeypatch.setattr(reader.index.passages, "entry", watched)
    monkeypatch.setattr(reader_module, "BESIDE_MIN", 0)
    assert answers() == in_line
    assert len(threads) == 2 * len(questions)
    assert all(name.startswith("mragent-passages") for name in threads), threads


def test_the_change_feed_reads_every_row_once_across_windows_and_pages(
    memories: MemoryWriter, store: GraphStore, ns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows of versions, each paged on the id: versions holding more than a page and
    windows left thin both come out whole, each cue and content once."""
    ingest(store, generate(60), ns, batch_size=20)  # 3 versions of 20 contents
    ingest(store, generate(30, seed=1), ns, batch_size=2)  # 15 versions of 2
    monkeypatch.setattr(live_index, "FEED_PAGE", 7)
    monkeypatch.setattr(live_index, "FEED_WINDOW", 1)
    with _Counting(store) as calls:
        reader = MemoryReader(store, ns)
    pages = [params for name, params in calls if name == "index_contents"]
    widths = {params["upto"] - params["since"] for params in pages}
    assert any(p["after"] for p in pages) and len(widths) > 1  # paged, and windows resized
    # A hashing namespace keeps no passage vectors: none is sent.
    assert not any(p["vectors"] for p in pages)
    stored = store.run("content_snapshot", {"ns": ns, **ReadView().params()})
    assert sorted(reader.index.passages.ids) == sorted(row["id"] for row in stored)
    cues = feed_page(store, "index_cues", ns)
    assert sorted(reader.index.cues.ids) == sorted(row["id"] for row in cues)
    fact = memories.remember("The Perseus bridge was built by Anton Weiss.", principal=ANA)
    reader.refresh()
    assert reader.index.passages.ids.count(fact.id) == 1


def test_a_purge_voids_every_copy_saved_before_it(
    memories: MemoryWriter, store: GraphStore, ns: str, index_dir: Path, tmp_path: Path
) -> None:
    target = memories.remember(FACT, principal=ANA)
    memories.remember("The Perseus bridge was built by Anton Weiss.", principal=ANA)
    MemoryReader(store, ns)
    kept = tmp_path / "kept"
    shutil.copytree(index_dir, kept)
    memories.purge(target.id, principal=ANA, reason="test")
    assert not any(index_dir.rglob("*.npy"))  # the purging process deleted its copies
    shutil.rmtree(index_dir)
    shutil.copytree(kept, index_dir)  # a copy from before the purge comes back
    with _Counting(store) as calls:
        reader = MemoryReader(store, ns)
    # A full build: the feed from the start.
    assert any(name == "index_cues" and params["since"] == -1 for name, params in calls)
    assert "Voss" not in reader.index.passages.sparse.vocab
    assert "voss" not in reader.index.passages.sparse.vocab


# --- fanout ranks over visible edges -----------------------------------------------------------


def _from_title(store: GraphStore, ns: str, title: str, view: ReadView) -> list[str]:
    """Content ids one ranked hop (tagFanout 1) from the cue of ``title``."""
    cue = next(r for r in feed_page(store, "index_cues", ns) if r["text"] == title)
    hit = CueHit(cue["id"], title, 0.0, 0.0, 1.0, 1.0)
    genome = Genome(traversalDepth=1, tagFanout=1, cueK=1, pruneThreshold=0.0)
    found = traverse(store, ns, view, [hit], genome, bridges=False)
    assert found is not None
    return [c.id for c in found.candidates]


@pytest.mark.parametrize("run", range(4))
def test_after_a_correction_the_current_version_takes_the_fanout_slot(
    memories: MemoryWriter, store: GraphStore, ns: str, run: int
) -> None:
    old = memories.remember(FACT, principal=ANA, title="Lyra observatory")
    new = memories.correct(
        old.id, "The Lyra observatory is directed by Ilse Kruger.", principal=ANA
    )
    assert _from_title(store, ns, "Lyra observatory", ReadView()) == [new.id]
    # A read at a time before the correction sees the old version through the same slot.
    before = memories.get(new.id).recorded_at - 1
    assert _from_title(store, ns, "Lyra observatory", ReadView(as_of=before)) != [new.id]


def test_review_moves_the_fanout_slot(memories: MemoryWriter, store: GraphStore, ns: str) -> None:
    title = "Vega ferry"
    first = memories.remember("The Vega ferry leaves at dawn.", principal=ANA, title=title)
    second = memories.remember("The Vega ferry is painted red.", principal=SCOUT, title=title)
    assert _from_title(store, ns, title, ReadView()) == [first.id]
    pending = _from_title(store, ns, title, ReadView(include_pending=True))
    assert len(pending) == 1
    memories.reject(first.id, principal=BOB)
    assert _from_title(store, ns, title, ReadView()) == []
    memories.accept(second.id, principal=BOB)
    assert _from_title(store, ns, title, ReadView()) == [second.id]
    assert _from_title(store, ns, title, ReadView(include_pending=True)) == [second.id]


# --- the reader's view mask mirrors the database's -----------------------------------------------


def test_the_readers_view_mask_agrees_with_the_database(
    memories: MemoryWriter, store: GraphStore, ns: str
) -> None:
    a = memories.remember(FACT, principal=ANA)
    b = memories.remember("The Vega ferry leaves at dawn.", principal=SCOUT)
    c = memories.remember("The Cygnus bakery is owned by Rosa Velasquez.", principal=SCOUT)
    memories.remember("The Draco mine is managed by Pavel Lindqvist.", principal=ANA, scope="x")
    memories.correct(a.id, FACT + " Since 1999.", principal=ANA)
    memories.accept(b.id, principal=ANA)
    memories.reject(c.id, principal=ANA)
    d = memories.remember("The Hydra lighthouse is tended by Omar Said.", principal=ANA)
    memories.forget(d.id, principal=ANA, reason="test")
    times = [None] + [1_000_000.0 + 60.0 * k + 30.0 for k in range(-1, 12)]
    for scopes in (("shared",), ("shared", "x")):
        for pending in (False, True):
            for as_of in times:
                view = ReadView(scopes=scopes, include_pending=pending, as_of=as_of)
                reader = MemoryReader(store, ns, view=view)
                index = reader.index.passages
                mine = {index.ids[s] for s in index.admitted(view, 2e9).nonzero()[0]}
                theirs = {row["id"] for row in reader.snapshot()}
                assert mine == theirs, view
