"""Export and import a namespace's memories: one file format, one schema, one serializer.

A ``mragent-memories/1`` file is a JSON object::

    {"format": "mragent-memories/1", "ns": ..., "embedder": <identity text or null>,
     "exported_at": <epoch seconds>, "scopes": [...], "include_forgotten": bool,
     "memories": [<MemoryRecord.to_json()>, ...]}

Every record is a :class:`~mragent.memory.records.MemoryRecord` both ways, so export and
import cannot disagree on a field. Records are numbered from 0 (their index in
``memories``) in error messages.

Import checks the whole file before it writes anything: the format, every record
(schema, scope, principal, text against hash, tombstone consistency, duplicates),
that every ``supersedes``/``depends_on`` id resolves in the file or the target
namespace, and that the file's embedder is the target namespace's. A file that is
not JSON or not in the format is moved aside (``<name>.corrupt-<n>``), never read
as empty. The write is one audit record.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from mragent.core.corpus import MAX_TEXT, Content, Corpus, validate_namespace
from mragent.core.embedding import Embedder, EmbedderIdentity, check_identity, embedder_from_spec
from mragent.core.errors import (
    ConfigError,
    CorpusError,
    EmbeddingMismatch,
    QueryError,
    WriteRefused,
)
from mragent.core.extract import Extractor, RuleExtractor
from mragent.core.files import quarantine
from mragent.core.store.base import GraphStore
from mragent.core.view import validate_scope
from mragent.memory.audit import AuditLog
from mragent.memory.audited import audited
from mragent.memory.ingest import WriteStamp, build_batches, prepare_write, text_hash
from mragent.memory.principal import Principal, parse_principal
from mragent.memory.records import MemoryRecord

FORMAT = "mragent-memories/1"
PAGE = 500  # ids per read and records per write statement
ImportMode = Literal["merge", "replace"]
_ENVELOPE = ("format", "ns", "embedder", "exported_at", "scopes", "include_forgotten", "memories")
# The Content properties ingest_batch sets on creation; an imported record overrides them all.
_INGEST_FIELDS = (
    "key",
    "id",
    "text",
    "title",
    "source",
    "hash",
    "principal",
    "trust",
    "lineage",
    "recorded_at",
    "valid_from",
    "valid_to",
)


class TransferFileError(CorpusError):
    """A memories file is not JSON or not in the format; it has been moved aside."""


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


@dataclass(frozen=True)
class ImportReport:
    """What an import did.

    Attributes:
        path: The file read.
        ns: The namespace written.
        mode: ``merge`` or ``replace``.
        records: Versions in the file.
        written: Versions written.
        skipped: Versions whose id the namespace already held (merge).
        forgotten: Tombstones among those written.
        edges: SUPERSEDES and DEPENDS_ON edges written.
        deleted: Nodes (contents, tags, cues) deleted first (replace).
    """

    path: Path
    ns: str
    mode: str
    records: int
    written: int
    skipped: int
    forgotten: int
    edges: int
    deleted: int


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


# -- export ----------------------------------------------------------------------------


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
    chosen = _scopes(scopes)
    path = Path(path)
    rows = store.run("get_space", {"ns": ns})
    embedder = rows[0]["embedder"] if rows else None
    params = {"ns": ns, "scopes": list(chosen)}
    ids = [
        row["id"]
        for row in store.run("memory_ids", {**params, "include_forgotten": include_forgotten})
    ]
    records: list[MemoryRecord] = []
    for page in _pages(ids):
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
    _write_atomic(path, json.dumps(document, indent=1, ensure_ascii=False) + "\n")
    forgotten = sum(record.forgotten for record in records)
    return ExportReport(path, ns, chosen, len(records), forgotten, dropped)


def _write_atomic(path: Path, text: str) -> None:
    """Write via a unique temporary file in the same directory, fsync, rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    # The rename must survive a crash too, not just the bytes.
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


# -- reading and validating a file -----------------------------------------------------


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


# -- import ----------------------------------------------------------------------------


@dataclass
class _Plan:
    """What an import will write, computed before it writes anything."""

    to_write: list[MemoryRecord]
    skipped: int
    batches: dict[str, list[Any]]  # scope -> ingest batches of its live records
    edges: dict[str, list[dict[str, str]]]  # scope -> edges


def import_memories(
    store: GraphStore,
    ns: str,
    path: Path | str,
    *,
    principal: Principal,
    audit: AuditLog,
    mode: ImportMode = "merge",
    confirm_replace: bool = False,
    embedder: Embedder | None = None,
    extractor: Extractor | None = None,
) -> ImportReport:
    """Import a memories file into ``ns``, checking all of it before writing any of it.

    Each version keeps its id, key, lineage, principal, trust, review, times,
    scope, given tags and cues, edges and tombstone state. Live versions are
    extracted again (cues, tags, links); tombstones are written without any
    REFERENCES edge or cue.

    Args:
        store: An open graph store.
        ns: The namespace written (need not be the file's).
        path: The file.
        principal: Who imports; a human or system principal (the file sets trust
            states, which an agent could otherwise use to skip review).
        audit: The audit log; the import is one record (action ``import``,
            target the file name, after the sha256 of the file's bytes).
        mode: ``merge`` skips versions whose id the namespace holds; ``replace``
            first deletes every content, tag and cue of the file's scopes.
        confirm_replace: Must be True for ``replace``.
        embedder: Must have the file's identity; default: the file's (a hashing
            embedder can be rebuilt from its identity text).
        extractor: Regenerates cues and tags of live versions.

    Raises:
        ConfigError: missing file, bad mode, ``replace`` unconfirmed, or an
            embedder that cannot be rebuilt from the file.
        TransferFileError: not JSON or not the format (moved aside).
        CorpusError: an invalid record or an unresolved reference, by index.
        EmbeddingMismatch: the file's embedder differs from ``embedder`` or from
            the namespace's stamp; both are named.
        WriteRefused: an agent principal, or a key the namespace holds under
            another id.
    """
    validate_namespace(ns)
    if mode not in ("merge", "replace"):
        raise ConfigError(f"--mode {mode!r}: expected merge or replace")
    if mode == "replace" and not confirm_replace:
        raise ConfigError(
            "--mode replace deletes the namespace's memories in the file's scopes first; "
            "pass --yes to confirm"
        )
    if principal.kind == "agent":
        raise WriteRefused(
            f"import writes the trust states the file records; it needs a human or system "
            f"principal, not {principal}"
        )
    data = read_memories_file(path)
    name = str(data.path)
    space = store.run("get_space", {"ns": ns})
    stamp = space[0]["embedder"] if space else None
    if data.embedder is not None:
        embedder = _embedder_for(name, data.embedder, embedder)
        try:
            check_identity(ns, stamp, embedder.identity)
        except EmbeddingMismatch as exc:
            raise EmbeddingMismatch(f"{name}: {exc}") from None
    # else: the export of a namespace never written; it holds no memories (validated).
    plan = _plan(store, ns, data, mode, embedder, extractor or RuleExtractor(), principal)
    if not plan.to_write and (mode == "merge" or stamp is None):
        # Nothing to write and (replace) nothing to delete: no write, no audit record.
        return ImportReport(data.path, ns, mode, len(data.records), 0, plan.skipped, 0, 0, 0)
    if plan.to_write:
        assert embedder is not None  # records imply an embedder identity (validated)
        prepare_write(store, ns, embedder)
    forgotten = sum(record.forgotten for record in plan.to_write)
    edges = sum(len(scope_edges) for scope_edges in plan.edges.values())
    detail = {
        "mode": mode,
        "from_ns": data.ns,
        "records": len(data.records),
        "written": len(plan.to_write),
        "skipped": plan.skipped,
        "forgotten": forgotten,
        "edges": edges,
        "scopes": len(data.scopes),
    }
    target = data.path.name
    with audited(store, audit, ns, principal, "import", target, None, data.digest, detail):
        deleted = _write(store, ns, data, mode, plan)
        store.run("rank_links", {"ns": ns})
        store.run("rank_references", {"ns": ns})
    return ImportReport(
        data.path,
        ns,
        mode,
        len(data.records),
        len(plan.to_write),
        plan.skipped,
        forgotten,
        edges,
        deleted,
    )


def _embedder_for(name: str, identity: str, given: Embedder | None) -> Embedder:
    if given is None:
        try:
            return embedder_from_spec(identity, f"{name}: embedder")
        except ConfigError as exc:
            raise ConfigError(f"{exc}; pass the embedder the file was exported with") from None
    if given.identity.as_text() != identity:
        raise EmbeddingMismatch(
            f"{name} was exported with embedder {identity}; refusing to import it with "
            f"{given.identity.as_text()}"
        )
    return given


def _plan(
    store: GraphStore,
    ns: str,
    data: MemoriesFile,
    mode: ImportMode,
    embedder: Embedder | None,
    extractor: Extractor,
    principal: Principal,
) -> _Plan:
    """Resolve references, find what exists, build the ingest batches: no writes."""
    name = str(data.path)
    in_file = {record.id: record.scope for record in data.records}
    referenced = {ref for record in data.records for _, ref in _references(record)}
    existing: set[tuple[str, str]] = set()  # (scope, id) in the target
    keys: dict[tuple[str, str], str] = {}  # (scope, key) -> id, in the target
    if mode == "merge":  # replace deletes these scopes: only the file counts
        wanted_ids = sorted(set(in_file) | referenced)
        wanted_keys = sorted({record.key for record in data.records})
        for row in _existing(store, ns, list(data.scopes), wanted_ids, wanted_keys):
            existing.add((row["scope"], row["id"]))
            keys[(row["scope"], row["key"])] = row["id"]
    to_write: list[MemoryRecord] = []
    edges: dict[str, list[dict[str, str]]] = defaultdict(list)
    for index, record in enumerate(data.records):
        for kind, ref in _references(record):
            if (record.scope, ref) in existing:
                continue
            scope = in_file.get(ref)
            if scope is None:
                raise CorpusError(
                    name, str(index), f"{kind}: {ref!r} is not in the file or the namespace"
                )
            if scope != record.scope:
                raise CorpusError(
                    name, str(index), f"{kind}: {ref!r} is in scope {scope!r}, not {record.scope!r}"
                )
        if (record.scope, record.id) in existing:
            continue
        holder = keys.get((record.scope, record.key))
        if holder is not None:
            raise WriteRefused(
                f"{name}: record {index}: key {record.key!r} is held in scope {record.scope!r} "
                f"of namespace {ns!r} by another id ({holder}); import into another namespace "
                "or use --mode replace"
            )
        to_write.append(record)
        edges[record.scope].extend(
            {"src": record.id, "dst": ref, "kind": kind} for kind, ref in _references(record)
        )
    batches = _ingest_batches(to_write, embedder, extractor, principal, name)
    skipped = len(data.records) - len(to_write)
    return _Plan(to_write, skipped, batches, dict(edges))


def _references(record: MemoryRecord) -> list[tuple[str, str]]:
    """(kind, id) of every edge a version starts: its SUPERSEDES and DEPENDS_ON targets."""
    return [("supersedes", ref) for ref in record.supersedes] + [
        ("depends_on", ref) for ref in record.depends_on
    ]


def _existing(
    store: GraphStore, ns: str, scopes: list[str], ids: list[str], keys: list[str]
) -> Iterator[dict[str, Any]]:
    for start in range(0, max(len(ids), len(keys)), PAGE):
        params = {
            "ns": ns,
            "scopes": scopes,
            "ids": ids[start : start + PAGE],
            "keys": keys[start : start + PAGE],
        }
        yield from store.run("memory_existing", params)


def _ingest_batches(
    records: list[MemoryRecord],
    embedder: Embedder | None,
    extractor: Extractor,
    principal: Principal,
    name: str,
) -> dict[str, list[Any]]:
    """Per scope, the ingest batches of its live versions, carrying the records' fields."""
    by_scope: dict[str, list[MemoryRecord]] = defaultdict(list)
    for record in records:
        if not record.forgotten:
            by_scope[record.scope].append(record)
    batches: dict[str, list[Any]] = {}
    for scope, live in by_scope.items():
        assert embedder is not None  # records imply an embedder identity (validated)
        contents = [
            Content(
                key=record.key,
                text=record.text or "",
                title=record.title,
                tags=tuple(record.given_tags) if record.given_tags is not None else None,
                cues=tuple(record.given_cues) if record.given_cues is not None else None,
                source=record.source,
            )
            for record in live
        ]
        # The stamp is overridden per content below: a version keeps who wrote it,
        # its trust and its times, not the importer's.
        stamp = WriteStamp(principal, scope, "pending")
        built = build_batches(Corpus(contents=contents, name=name), extractor, embedder, stamp)
        by_key = {record.key: record for record in live}
        for batch in built:
            for content in batch.contents:
                record = by_key[content["key"]]
                content.update({field: getattr(record, field) for field in _INGEST_FIELDS})
        batches[scope] = built
    return batches


def _write(store: GraphStore, ns: str, data: MemoriesFile, mode: ImportMode, plan: _Plan) -> int:
    """Write the plan; return how many nodes replace deleted first.

    One transaction: atomic on Neo4j and Memgraph. FalkorDB commits each statement
    alone, so the order matters there: versions are created whole (memory_restore)
    before ingest links tags to them, and edges come last.
    """
    deleted = 0
    by_scope: dict[str, list[MemoryRecord]] = defaultdict(list)
    for record in plan.to_write:
        by_scope[record.scope].append(record)
    with store.transaction() as tx:
        if mode == "replace":
            rows = tx.run("memory_delete_scopes", {"ns": ns, "scopes": list(data.scopes)})
            deleted = int(rows[0]["deleted"]) if rows else 0
        for scope, records in by_scope.items():
            for page in _pages(records):
                rows = [record.to_json() for record in page]
                for row in rows:  # edges go through memory_restore_edges
                    del row["supersedes"], row["depends_on"]
                tx.run("memory_restore", {"ns": ns, "scope": scope, "records": rows})
            for batch in plan.batches.get(scope, []):
                tx.run("ingest_batch", batch.params(ns, scope))
        for scope, edges in plan.edges.items():
            for page in _pages(edges):
                rows = tx.run("memory_restore_edges", {"ns": ns, "scope": scope, "edges": page})
                linked = int(rows[0]["linked"]) if rows else 0
                if linked != len(page):
                    raise QueryError(
                        "memory_restore_edges",
                        f"linked {linked} of {len(page)} edges in scope {scope!r}: "
                        "a version changed during the import",
                    )
    return deleted


def _scopes(scopes: Sequence[str]) -> tuple[str, ...]:
    if not scopes:
        raise ConfigError("--scope: at least one scope is needed")
    return tuple(dict.fromkeys(validate_scope(scope) for scope in scopes))


def _pages(items: Sequence[Any]) -> Iterator[list[Any]]:
    for start in range(0, len(items), PAGE):
        yield list(items[start : start + PAGE])
