"""The one atomic file write: whole or nothing, durable, with the mode asked for."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from mragent.core import files
from mragent.core.files import (
    PRIVATE,
    quarantine,
    write_bytes_atomic,
    write_json_atomic,
    write_text_atomic,
)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def test_writes_whole_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "out.txt"
    write_text_atomic(path, "first\n")
    write_text_atomic(path, "second ünï\n")
    assert path.read_text(encoding="utf-8") == "second ünï\n"
    assert sorted(p.name for p in path.parent.iterdir()) == ["out.txt"]


def test_bytes_and_json_variants(tmp_path: Path) -> None:
    write_bytes_atomic(tmp_path / "b.bin", b"\x00\xff" * 40_000)
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\xff" * 40_000
    write_json_atomic(tmp_path / "j.json", {"b": 1, "a": [2]})
    assert (tmp_path / "j.json").read_text() == '{\n  "b": 1,\n  "a": [\n    2\n  ]\n}\n'


def test_private_mode_from_creation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 0600 file is never, even as its temporary, open to others."""
    seen: list[int] = []
    real_replace = os.replace

    def replace(src: str | Path, dst: str | Path) -> None:
        seen.append(_mode(Path(src)))
        real_replace(src, dst)

    monkeypatch.setattr(files.os, "replace", replace)
    path = tmp_path / "secret"
    path.write_text("old")
    path.chmod(0o644)
    write_text_atomic(path, "new", mode=PRIVATE)
    assert seen == [0o600] and _mode(path) == 0o600 and path.read_text() == "new"


def test_default_mode_follows_umask(tmp_path: Path, umask_022: None) -> None:
    write_text_atomic(tmp_path / "report.json", "{}")
    assert _mode(tmp_path / "report.json") == 0o644


def test_failure_leaves_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "kept.txt"
    path.write_text("old")

    def fail(src: str | Path, dst: str | Path) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(files.os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        write_text_atomic(path, "new")
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.txt"]


def test_file_and_directory_are_fsynced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both the bytes and the rename survive a crash: the file is synced before the
    rename, its directory after."""
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append("dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real_fsync(fd)

    def replace(src: str | Path, dst: str | Path) -> None:
        events.append("replace")
        real_replace(src, dst)

    monkeypatch.setattr(files.os, "fsync", fsync)
    monkeypatch.setattr(files.os, "replace", replace)
    write_bytes_atomic(tmp_path / "x", b"x")
    assert events == ["file", "replace", "dir"]


def test_quarantine_moves_aside_to_first_free_name(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    (tmp_path / "state.json.corrupt-1").write_text("older")
    path.write_text("{bad")
    assert quarantine(path) == tmp_path / "state.json.corrupt-2"
    assert not path.exists() and (tmp_path / "state.json.corrupt-2").read_text() == "{bad"
