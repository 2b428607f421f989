"""The ``mragent-memories/1`` file: its format, reading and validating one, writing one.

A ``mragent-memories/1`` file is a JSON object::

    {"format": "mragent-memories/1", "ns": ..., "embedder": <identity text or null>,
     "exported_at": <epoch seconds>, "scopes": [...], "include_forgotten": bool,
     "memories": [<MemoryRecord.to_json()>, ...]}

Every record is a :class:`~mragent.memory.records.MemoryRecord` both ways, so export and
import cannot disagree on a field. Records are numbered from 0 (their index in
``memories``) in error messages.

A file that is not JSON or not in the format is moved aside
(``<name>.corrupt-<n>``), never read as empty.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mragent.core.corpus import MAX_TEXT, check_input_file, clean_name, clean_text
from mragent.core.embedding import EmbedderIdentity
from mragent.core.errors import ConfigError, CorpusError
from mragent.core.files import quarantine
from mragent.core.view import validate_scope
from mragent.memory.ingest import text_hash
from mragent.memory.principal import parse_principal
from mragent.memory.records import MemoryRecord

FORMAT = "mragent-memories/1"
_ENVELOPE = ("format", "ns", "embedder", "exported_at", "scopes", "include_forgotten", "memories")


class TransferFileError(CorpusError):
    """A memories file is not JSON or not in the format; it has been moved aside."""


@dataclass(frozen=True)
class MemoriesFile:
    """A validated ``mragent-memories/1`` file.

    Attributes:
        path: Where it was read from.
        digest: sha256 hex of the file's bytes (the import's audit ``after``).
        ns: The namespace it was exported from.
        embedder: Identity text of that namespace's embedder (None: never written).
        exported_at: Epoch seconds.
        scopes: The scopes exported.
        include_forgotten: Whether tombstones were exported.
        records: The versions, in file order.
    """

    path: Path
    digest: str
    ns: str
    embedder: str | None
    exported_at: float
    scopes: tuple[str, ...]
    include_forgotten: bool
    records: tuple[MemoryRecord, ...]


def read_memories_file(path: Path | str) -> MemoriesFile:
    """Read and validate a memories file on its own (nothing about any namespace).

    Raises:
        ConfigError: when the file does not exist or cannot be read.
        TransferFileError: when it is not JSON or not a ``mragent-memories/1``
            object; it has been moved aside to ``<name>.corrupt-<n>``.
        CorpusError: naming the record index, for an invalid record (the file
            is left where it is).
    """
    path = Path(path)
    try:
        check_input_file(path)
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        envelope = _envelope(raw)
    except ValueError as exc:
        moved = quarantine(path)
        raise TransferFileError(str(path), None, f"{exc}; moved aside to {moved}") from None
    records = _records(str(path), envelope["memories"], envelope["scopes"])
    return MemoriesFile(
        path=path,
        digest=hashlib.sha256(raw).hexdigest(),
        ns=envelope["ns"],
        embedder=envelope["embedder"],
        exported_at=float(envelope["exported_at"]),
        scopes=tuple(envelope["scopes"]),
        include_forgotten=envelope["include_forgotten"],
        records=records,
    )


def _envelope(raw: bytes) -> dict[str, Any]:
    """The top-level object, checked; ValueError says what is wrong."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON (line {exc.lineno} column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise ValueError("not JSON this reader can take (nested too deeply)") from None
    if not isinstance(data, dict):
        raise ValueError(f"not a {FORMAT} file: the top level is not a JSON object")
    if data.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT} file (format {data.get('format')!r})")
    missing = [key for key in _ENVELOPE if key not in data]
    unknown = sorted(set(data) - set(_ENVELOPE))
    if missing or unknown:
        raise ValueError(f"{FORMAT}: missing {missing}, unknown {unknown}")
    if not isinstance(data["ns"], str) or not data["ns"]:
        raise ValueError("'ns' must be a non-empty string")
    if not isinstance(data["exported_at"], int | float) or isinstance(data["exported_at"], bool):
        raise ValueError("'exported_at' must be epoch seconds")
    if not isinstance(data["include_forgotten"], bool):
        raise ValueError("'include_forgotten' must be true or false")
    if not isinstance(data["memories"], list):
        raise ValueError("'memories' must be a list")
    scopes = data["scopes"]
    if not isinstance(scopes, list) or not scopes or not all(isinstance(s, str) for s in scopes):
        raise ValueError("'scopes' must be a non-empty list of scope names")
    for scope in scopes:
        try:
            validate_scope(scope, "scope")
        except ConfigError as exc:
            raise ValueError(f"'scopes': {exc}") from None
    embedder = data["embedder"]
    if embedder is None:
        if data["memories"]:
            raise ValueError("'embedder' is null but the file holds memories")
    elif not isinstance(embedder, str):
        raise ValueError("'embedder' must be an embedder identity text or null")
    else:
        try:
            EmbedderIdentity.from_text(embedder)
        except ValueError:
            raise ValueError(f"'embedder' {embedder!r} is not an embedder identity") from None
    return data


def _records(path: str, items: list[Any], scopes: list[str]) -> tuple[MemoryRecord, ...]:
    """Every record through MemoryRecord, then the rules a stored version obeys."""
    records: list[MemoryRecord] = []
    ids: dict[str, int] = {}
    keys: dict[tuple[str, str], int] = {}
    for index, item in enumerate(items):
        where = str(index)
        if not isinstance(item, dict):
            raise CorpusError(path, where, f"must be an object, got {type(item).__name__}")
        try:
            record = MemoryRecord.model_validate(item)
        except ValidationError as exc:
            raise CorpusError(path, where, _validation_message(exc)) from None
        problem = _record_problem(record, scopes)
        if problem:
            raise CorpusError(path, where, problem)
        if record.id in ids:
            raise CorpusError(path, where, f"duplicate id {record.id!r} (record {ids[record.id]})")
        slot = (record.scope, record.key)
        if slot in keys:
            raise CorpusError(
                path,
                where,
                f"duplicate key {record.key!r} in scope {record.scope!r} (record {keys[slot]})",
            )
        ids[record.id], keys[slot] = index, index
        records.append(record)
    return tuple(records)


def _string_problem(record: MemoryRecord) -> str | None:
    """A text that cannot be stored, or a name not in the normal form every write
    path gives names (ids are not rewritten here: other records refer to them)."""
    names: dict[str, list[str | None]] = {
        "id": [record.id],
        "key": [record.key],
        "lineage": [record.lineage],
        "title": [record.title or None],
        "source": [record.source or None],
        "given_tags": list(record.given_tags or []),
        "given_cues": list(record.given_cues or []),
        "supersedes": list(record.supersedes),
        "depends_on": list(record.depends_on),
    }
    try:
        if record.text is not None and clean_text(record.text, "text") != record.text:
            return "text: not in Unicode normal form NFC"
        for field, values in names.items():
            for value in values:
                if value is not None and clean_name(value, field) != value:
                    return f"{field}: {value!r} is not in normal form (NFC, no outer spaces)"
    except ValueError as exc:
        return str(exc)
    return None


def _validation_message(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        field = ".".join(str(part) for part in error["loc"]) or "record"
        parts.append(f"{field}: {error['msg']}")
    return "; ".join(parts)


def _record_problem(record: MemoryRecord, scopes: list[str]) -> str | None:
    """Why a schema-valid record cannot be a stored version, or None."""
    try:
        validate_scope(record.scope, "scope")
        parse_principal(record.principal, "principal")
    except ConfigError as exc:
        return str(exc)
    unstorable = _string_problem(record)
    if unstorable:
        return unstorable
    if record.scope not in scopes:
        return f"scope {record.scope!r} is not one of the file's scopes {scopes}"
    if not record.lineage:
        return "lineage: must not be empty"
    if record.purged_at is not None and record.forgotten_at is None:
        return "purged_at is set but forgotten_at is not (only tombstones are purged)"
    if record.text is None:
        if record.purged_at is None:
            return "text: missing, and the record was not purged"
    else:
        if not record.text.strip() or len(record.text) > MAX_TEXT:
            return f"text: must be 1 to {MAX_TEXT} characters, not blank"
        if text_hash(record.text) != record.hash:
            return "hash: does not match the text (sha256): edited or damaged"
    if (
        record.valid_from is not None
        and record.valid_to is not None
        and record.valid_to <= record.valid_from
    ):
        return f"valid_to ({record.valid_to}) must be after valid_from ({record.valid_from})"
    return None
