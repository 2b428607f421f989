"""Files the tool reads back: a corrupt one is moved aside, never read as empty."""

from __future__ import annotations

from pathlib import Path


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
