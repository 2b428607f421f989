"""Files the tool writes and reads back.

A file is written atomically (:func:`write_bytes_atomic`, :func:`write_text_atomic`,
:func:`write_json_atomic`): a reader, or the next run after a crash, sees the old
file or the new one whole, never half of one. A corrupt file is moved aside
(:func:`quarantine`), never read as empty.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

# What open() gives a new file: the process umask decides the final bits.
DEFAULT_MODE = 0o666
# Owner only: files holding secrets, or memory texts (an export, a view).
PRIVATE = 0o600


def fsync_dir(path: Path) -> None:
    """Flush the directory ``path`` itself, so a file created or renamed in it
    survives a crash (the file's own fsync does not cover its directory entry)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_bytes_atomic(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` atomically and durably.

    The bytes go to a temporary file with a random name in the same directory
    (a rename is atomic only within one file system), which is fsync'ed, renamed
    over ``path`` with :func:`os.replace`, and then the directory is fsync'ed so
    the rename itself survives a crash. On any error the temporary file is
    removed and ``path`` is left as it was. Missing parent directories are made.

    Args:
        path: The file to write.
        data: Its whole new content.
        mode: Permission bits the file has from the moment it exists, exactly
            (``0o600`` for a file holding secrets or memory texts: it is never
            readable by others, not even briefly). None: what a plain
            ``open(path, "w")`` would give, ``0o666`` less the umask.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, DEFAULT_MODE if mode is None else mode)
    try:
        try:
            if mode is not None:
                os.fchmod(fd, mode)  # the umask may have taken bits the caller asked for
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def write_text_atomic(
    path: Path, text: str, *, mode: int | None = None, encoding: str = "utf-8"
) -> None:
    """Write ``text`` to ``path`` atomically and durably (see :func:`write_bytes_atomic`)."""
    write_bytes_atomic(path, text.encode(encoding), mode=mode)


def write_json_atomic(path: Path, data: Any, *, mode: int | None = None) -> None:
    """Write ``data`` as indented JSON (one trailing newline) atomically and durably."""
    write_text_atomic(path, json.dumps(data, indent=2, sort_keys=False) + "\n", mode=mode)


def quarantine(path: Path) -> Path:
    """Move an unreadable file aside to ``<name>.corrupt-<n>`` (first free n).

    Returns:
        Where the file now is, for the error message.
    """
    n = 1
    while path.with_name(f"{path.name}.corrupt-{n}").exists():
        n += 1
    target = path.with_name(f"{path.name}.corrupt-{n}")
    path.replace(target)
    return target
