"""Export a namespace's memories to one file, and the paging export and import share.

Export and import use one file format, one schema, one serializer: the format is
:mod:`mragent.apps.transfer.file`, the import :mod:`mragent.apps.transfer.importer`.
Both read and write in pages of :data:`PAGE`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mragent.apps.transfer.file import FORMAT
from mragent.core.corpus import validate_namespace
from mragent.core.errors import ConfigError
from mragent.core.files import PRIVATE, write_text_atomic
from mragent.core.store.base import GraphStore
from mragent.core.view import validate_scope
from mragent.memory.records import MemoryRecord

PAGE = 500  # ids per read and records per write statement


@dataclass(frozen=True)
class ExportReport:
    """What an export wrote.

    Attributes:
        path: The file written.
        ns: The namespace read.
        scopes: The scopes read.
        memories: Versions written (tombstones included when asked).
        forgotten: How many of them are tombstones.
        dropped_references: ``depends_on`` ids left out because they name a
            forgotten version that was not exported.
    """

    path: Path
    ns: str
    scopes: tuple[str, ...]
    memories: int
    forgotten: int
    dropped_references: int


def export_memories(
    store: GraphStore,
    ns: str,
    path: Path | str,
    *,
    scopes: Sequence[str],
    include_forgotten: bool = False,
) -> ExportReport:
    """Write the memories of ``scopes`` in ``ns`` to ``path`` (oldest first).

    The file is written to a temporary file and renamed over ``path``, so a crash
    leaves the old file or the new one, never half of one. Tombstones are left out
    unless ``include_forgotten``; a ``depends_on`` naming one is then dropped too
    (a dependency on a forgotten memory carries nothing: it cannot be reviewed).

    Raises:
        CorpusError: for an invalid namespace.
        ConfigError: for no or an invalid scope.
    """
    validate_namespace(ns)
    chosen = scopes_of(scopes)
    path = Path(path)
    rows = store.run("get_space", {"ns": ns})
    embedder = rows[0]["embedder"] if rows else None
    params = {"ns": ns, "scopes": list(chosen)}
    ids = [
        row["id"]
        for row in store.run("memory_ids", {**params, "include_forgotten": include_forgotten})
    ]
    records: list[MemoryRecord] = []
    for page in pages(ids):
        found = store.run("memory_records", {**params, "ids": page})
        records.extend(MemoryRecord.from_row(row) for row in found)
    exported = {record.id for record in records}
    dropped = 0
    if not include_forgotten:
        for i, record in enumerate(records):
            kept = [dep for dep in record.depends_on if dep in exported]
            if len(kept) != len(record.depends_on):
                dropped += len(record.depends_on) - len(kept)
                records[i] = record.model_copy(update={"depends_on": kept})
    document = {
        "format": FORMAT,
        "ns": ns,
        "embedder": embedder,
        "exported_at": time.time(),
        "scopes": list(chosen),
        "include_forgotten": include_forgotten,
        "memories": [record.to_json() for record in records],
    }
    write_text_atomic(path, json.dumps(document, indent=1, ensure_ascii=False) + "\n", mode=PRIVATE)
    forgotten = sum(record.forgotten for record in records)
    return ExportReport(path, ns, chosen, len(records), forgotten, dropped)


def scopes_of(scopes: Sequence[str]) -> tuple[str, ...]:
    if not scopes:
        raise ConfigError("--scope: at least one scope is needed")
    return tuple(dict.fromkeys(validate_scope(scope) for scope in scopes))


def pages(items: Sequence[Any]) -> Iterator[list[Any]]:
    """``items`` in lists of :data:`PAGE` (read when called, so a test may shrink it)."""
    for start in range(0, len(items), PAGE):
        yield list(items[start : start + PAGE])
