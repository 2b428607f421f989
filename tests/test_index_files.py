"""Index copies are signed and tied to the purge version.

A copy on disk is checked before it is parsed, so a crafted ``hnsw.bin`` (which
crashed hnswlib, and every later reader with it) and zeroed live masks (which made
recall answer nothing) are deleted and rebuilt; a copy older than the namespace's
last purge is deleted wherever it lives; a reader open across a purge does not carry
the erased words into a new copy. The engine is only the source of the namespace
here, so the embedded FalkorDB serves them all.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from mragent.core.genome import PRESETS
from mragent.core.store.base import GraphStore
from mragent.memory import index_files
from mragent.memory.audit import AuditLog
from mragent.memory.principal import Principal
from mragent.memory.reader import MemoryReader
from mragent.memory.writer import MemoryWriter

ANA = Principal("human", "ana")
FACT = "The Lyra observatory is directed by Mara Voss."
QUESTION = "Who directs the Lyra observatory?"
# hnswlib's file header: six size_t fields, maxlevel (int), then the entry point (uint32).
ENTRY_POINT_OFFSET = 6 * 8 + 4
READ = """
import sys
from mragent.core.genome import PRESETS
from mragent.core.store import open_store
from mragent.memory.reader import MemoryReader
with open_store(sys.argv[1]) as store:
    memory = MemoryReader(store, sys.argv[2])
    print(memory.reconstruct(sys.argv[3], PRESETS["default"]).context.text)
"""


@pytest.fixture
def ns(falkor_store: GraphStore) -> Iterator[str]:
    name = f"t-{uuid.uuid4().hex[:12]}"
    yield name
    falkor_store.run("delete_namespace", {"ns": name})


@pytest.fixture
def memories(falkor_store: GraphStore, ns: str, audit_log_path: Path) -> MemoryWriter:
    return MemoryWriter(falkor_store, ns, AuditLog(audit_log_path))


@pytest.fixture
def fact(memories: MemoryWriter) -> str:
    """The id of the memory a test purges (beside one it keeps)."""
    written = memories.remember(FACT, principal=ANA, title="Lyra observatory")
    memories.remember("The Perseus bridge was built by Anton Weiss.", principal=ANA)
    return written.id


def _copy(index_dir: Path) -> Path:
    """The one copy saved under ``index_dir``."""
    (meta,) = index_dir.rglob("meta.json")
    return meta.parent


def test_a_crafted_hnsw_file_is_deleted_and_rebuilt_not_loaded(
    falkor_store: GraphStore,
    memories: MemoryWriter,
    fact: str,
    ns: str,
    index_dir: Path,
    falkordb_url: str,
) -> None:
    MemoryReader(falkor_store, ns)
    crafted = _copy(index_dir) / "hnsw.bin"
    data = bytearray(crafted.read_bytes())
    data[ENTRY_POINT_OFFSET : ENTRY_POINT_OFFSET + 4] = (0x7FFFFFF0).to_bytes(4, "little")
    crafted.write_bytes(bytes(data))
    # In a process of its own: hnswlib reading the crafted file crashes the process.
    done = subprocess.run(
        [sys.executable, "-c", READ, falkordb_url, ns, QUESTION],
        env={**os.environ}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, (done.returncode, done.stderr[-500:])
    assert "Mara Voss" in done.stdout
    assert "fails its signature check" in done.stderr
    assert crafted.read_bytes() != bytes(data)  # rebuilt, and saved again


def test_zeroed_live_masks_are_deleted_and_rebuilt(
    falkor_store: GraphStore,
    memories: MemoryWriter,
    fact: str,
    ns: str,
    index_dir: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    MemoryReader(falkor_store, ns)
    live = _copy(index_dir) / "cues.live.npy"
    np.save(live, np.zeros_like(np.load(live, allow_pickle=False)), allow_pickle=False)
    with caplog.at_level(logging.WARNING, logger="mragent.memory.index_files"):
        reader = MemoryReader(falkor_store, ns)
    assert "fails its signature check" in caplog.text
    assert reader.index.cues.live.any()
    assert "Mara Voss" in reader.reconstruct(QUESTION, PRESETS["default"]).context.text


def test_a_copy_from_before_a_purge_is_deleted_wherever_it_lives(
    falkor_store: GraphStore,
    memories: MemoryWriter,
    fact: str,
    ns: str,
    index_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A second index directory (another MRAGENT_INDEX_DIR) keeps a copy the purging
    process never saw: the first reader that looks there deletes it."""
    elsewhere = tmp_path / "elsewhere"
    MemoryReader(falkor_store, ns, index_dir=elsewhere)
    before = _copy(elsewhere)
    memories.purge(fact, principal=ANA, reason="test")
    (space,) = falkor_store.run("get_space", {"ns": ns})
    identity = MemoryReader(falkor_store, ns, index_dir=tmp_path / "other").identity
    assert index_files.load(space, ns, ("shared",), identity, elsewhere) is None
    assert not before.exists()  # seen, void, deleted (not merely skipped)
    reader = MemoryReader(falkor_store, ns, index_dir=elsewhere)
    assert "voss" not in reader.index.passages.sparse.vocab
    assert "Lyra observatory" not in reader.index.passages.titles


def test_a_reader_open_across_a_purge_writes_no_copy_with_the_erased_words(
    falkor_store: GraphStore,
    memories: MemoryWriter,
    fact: str,
    ns: str,
    index_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reader = MemoryReader(falkor_store, ns)
    assert "voss" in reader.index.passages.sparse.vocab
    memories.purge(fact, principal=ANA, reason="test")
    shutil.rmtree(index_dir, ignore_errors=True)
    reader.refresh()  # rebuilt: the purge voids what it held, and it saves a new copy
    assert "voss" not in reader.index.passages.sparse.vocab
    assert "Lyra observatory" not in reader.index.passages.titles
    fresh = MemoryReader(falkor_store, ns)
    assert fresh.version == reader.version  # loaded from the copy the old reader wrote
    assert "voss" not in fresh.index.passages.sparse.vocab
    assert not any(b"Voss" in p.read_bytes() or b"voss" in p.read_bytes()
                   for p in index_dir.rglob("*") if p.is_file())  # fmt: skip


SAVE_RACE = """
import sys
from mragent.core.store import open_store
from mragent.memory import index_files
from mragent.memory.reader import MemoryReader
with open_store(sys.argv[1]) as store:
    reader = MemoryReader(store, sys.argv[2])
    for _ in range(int(sys.argv[3])):
        index_files.save(reader.index, reader.index_dir)
print("saved")
"""


def test_readers_saving_one_version_at_once_all_succeed(
    falkor_store: GraphStore, ns: str, fact: str, falkordb_url: str, index_dir: Path
) -> None:
    # Several processes reading one namespace save copies of the same version into
    # one directory at once; none of them may fail, and the copy left loads.
    MemoryReader(falkor_store, ns)
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", SAVE_RACE, falkordb_url, ns, "30"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
        )
        for _ in range(4)
    ]
    for racer in racers:
        out, err = racer.communicate(timeout=300)
        assert racer.returncode == 0 and out.strip() == "saved", err
    copy = _copy(index_dir)
    assert index_files._signed(copy)
    assert (
        FACT
        in MemoryReader(falkor_store, ns).reconstruct(QUESTION, PRESETS["default"]).context.text
    )


def test_an_unsigned_copy_of_the_same_version_is_replaced(
    falkor_store: GraphStore, ns: str, fact: str, index_dir: Path
) -> None:
    reader = MemoryReader(falkor_store, ns)
    copy = _copy(index_dir)
    (copy / index_files.SEAL).write_text("0" * 64, encoding="ascii")  # as a torn copy's
    assert index_files.save(reader.index, reader.index_dir) == copy
    assert index_files._signed(copy)
    assert not [p for p in copy.parent.iterdir() if p.name.startswith(".tmp-")]


def _resign(copy: Path) -> None:
    """Sign ``copy`` again with the home's key, as a copy written that way would be."""
    key = index_files._key(create=False)
    assert key is not None
    seal = index_files._sealed(key, index_files._digests(copy, {})[0])
    (copy / index_files.SEAL).write_text(seal, encoding="ascii")


def test_a_copy_of_an_earlier_format_at_the_same_version_is_replaced(
    falkor_store: GraphStore, ns: str, fact: str, index_dir: Path
) -> None:
    # A format change keeps the namespace's version: the new copy must take the old
    # one's place, or every reader rebuilds from the database for as long as it stands.
    MemoryReader(falkor_store, ns)
    copy = _copy(index_dir)
    meta = copy / "meta.json"
    meta.write_text(
        meta.read_text(encoding="utf-8").replace(
            f'"format": {index_files.FORMAT}', f'"format": {index_files.FORMAT - 1}'
        ),
        encoding="utf-8",
    )
    _resign(copy)
    reader = MemoryReader(falkor_store, ns)  # ignores it, rebuilds, saves
    assert f'"format": {index_files.FORMAT}' in meta.read_text(encoding="utf-8")
    loaded = index_files.load(
        falkor_store.run("get_space", {"ns": ns})[0], ns, reader.index.scopes, reader.identity
    )
    assert loaded is not None and loaded.version == reader.index.version


def test_a_signed_copy_that_cannot_be_read_is_deleted_and_rebuilt(
    falkor_store: GraphStore,
    ns: str,
    fact: str,
    index_dir: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    MemoryReader(falkor_store, ns)
    copy = _copy(index_dir)
    ends = copy / "cues.texts_ends.npy"
    np.save(ends, np.load(ends, allow_pickle=False)[:-1], allow_pickle=False)
    _resign(copy)
    with caplog.at_level(logging.WARNING, logger="mragent.memory.index_files"):
        reader = MemoryReader(falkor_store, ns)
    assert "cannot be read" in caplog.text
    assert FACT in reader.reconstruct(QUESTION, PRESETS["default"]).context.text
    # Rebuilt and saved again whole: the next reader loads it without a warning.
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="mragent.memory.index_files"):
        MemoryReader(falkor_store, ns)
    assert "cannot be read" not in caplog.text


@pytest.fixture
def copy(falkor_store: GraphStore, ns: str, fact: str, index_dir: Path) -> Path:
    """The copy a first reader of the namespace saved."""
    MemoryReader(falkor_store, ns)
    return _copy(index_dir)


def _settle(copy: Path) -> None:
    """Wait until the file system's clock has passed the change time of every file of
    ``copy`` (its times are coarse: a tick is milliseconds, on some a second)."""
    newest = max(p.stat().st_ctime_ns for p in copy.iterdir())
    probe = copy.parent / ".clock"
    for _ in range(400):
        probe.write_bytes(b"")
        if probe.stat().st_ctime_ns > newest:
            break
        time.sleep(0.005)
    probe.unlink()


def _hashed_files(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the files read to check a seal from now on."""
    seen: list[str] = []
    digest = hashlib.file_digest

    def counted(handle: Any, name: str) -> Any:
        seen.append(Path(handle.name).name)
        return digest(handle, name)

    monkeypatch.setattr(hashlib, "file_digest", counted)
    return seen


def test_a_checked_copy_is_not_read_again_while_its_files_stand(
    falkor_store: GraphStore, ns: str, copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert (copy / index_files.RECORD).exists()  # made with the seal
    _settle(copy)
    hashed = _hashed_files(monkeypatch)
    assert index_files._signed(copy)  # whatever was written in the record's tick is read
    _settle(copy)
    hashed.clear()
    assert index_files._signed(copy)
    assert hashed == []
    assert (
        FACT
        in MemoryReader(falkor_store, ns).reconstruct(QUESTION, PRESETS["default"]).context.text
    )


def test_a_file_rewritten_after_the_record_is_read_again_and_fails(
    copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _settle(copy)
    assert index_files._signed(copy)  # every file's digest now taken from the record
    live = copy / "cues.live.npy"
    data = bytearray(live.read_bytes())
    data[-1] ^= 1  # the same size, in place: only the file's times tell
    live.write_bytes(bytes(data))
    hashed = _hashed_files(monkeypatch)
    assert not index_files._signed(copy)
    assert hashed == ["cues.live.npy"]


def test_a_record_not_made_with_the_key_vouches_for_nothing(
    copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = copy / index_files.RECORD
    forged = json.loads(record.read_text(encoding="utf-8"))
    forged["files"]["hnsw.bin"][-1] = "0" * 64
    forged["mac"] = "0" * 64
    record.write_text(json.dumps(forged), encoding="utf-8")
    _settle(copy)
    hashed = _hashed_files(monkeypatch)
    assert index_files._signed(copy)  # the files are whole: hashed, and the seal holds
    assert "hnsw.bin" in hashed
    assert json.loads(record.read_text(encoding="utf-8"))["mac"] != "0" * 64  # made anew


def test_homes_sharing_an_index_directory_keep_their_copies_apart(
    falkor_store: GraphStore,
    memories: MemoryWriter,
    fact: str,
    ns: str,
    index_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Each home signs with a key of its own: a copy another home signed is neither
    taken for a tampered one (and deleted) nor loaded; a purge voids both."""
    copies = {}
    for home in ("ana-home", "bo-home"):
        monkeypatch.setenv("MRAGENT_HOME", str(tmp_path / home))
        MemoryReader(falkor_store, ns)
        copies[home] = {p.parent for p in index_dir.rglob("meta.json")}
    ana, bo = copies["ana-home"], copies["bo-home"] - copies["ana-home"]
    assert len(ana) == 1 and len(bo) == 1  # two copies, one per signer
    monkeypatch.setenv("MRAGENT_HOME", str(tmp_path / "ana-home"))
    with caplog.at_level(logging.WARNING, logger="mragent.memory.index_files"):
        reader = MemoryReader(falkor_store, ns)
    assert caplog.text == ""
    assert all(copy.exists() for copy in ana | bo)
    assert FACT in reader.reconstruct(QUESTION, PRESETS["default"]).context.text
    memories.purge(fact, principal=ANA, reason="test")
    MemoryReader(falkor_store, ns)
    assert not any(copy.exists() for copy in ana | bo)  # both held the erased words


def test_a_copy_of_the_layout_before_signers_is_deleted(
    falkor_store: GraphStore, ns: str, fact: str, index_dir: Path
) -> None:
    MemoryReader(falkor_store, ns)
    copy = _copy(index_dir)
    unsorted = copy.parent.parent / copy.name  # <uid>/<scopes>/<version>, as format 6 kept it
    shutil.copytree(copy, unsorted)
    MemoryReader(falkor_store, ns)
    assert not unsorted.exists()
    assert copy.exists()  # this home's copy stays
