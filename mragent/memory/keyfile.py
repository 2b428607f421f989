"""Secret keys kept in files: 32 random bytes, hex, in a 0600 file.

The audit log's key (:mod:`mragent.memory.audit_records`) and the key that signs
index copies (:mod:`mragent.memory.index_files`) are made and read here.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
from pathlib import Path

HEX64 = re.compile(r"^[0-9a-f]{64}$")


def make_key(path: Path) -> None:
    """Write a new key whole, then link it into place (a reader never sees half a
    key); when another process made one first, theirs is the key."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(secrets.token_hex(32) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.link(tmp, path)
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)


def load_key(path: Path) -> bytes:
    """The key in ``path``.

    Raises:
        FileNotFoundError: when there is none.
        PermissionError: when the file is open to its group or others (a key
            another user can read signs whatever that user wants).
        OSError, UnicodeDecodeError: when it cannot be read.
        ValueError: when it is not 64 hex digits.
    """
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise PermissionError(f"{path} is open to others (mode {mode:04o}); run chmod 600 on it")
    text = path.read_text(encoding="ascii").strip()
    if not HEX64.match(text):
        raise ValueError(f"{path} is not 64 hex digits")
    return bytes.fromhex(text)
