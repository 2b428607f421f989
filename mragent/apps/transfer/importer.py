"""Import a memories file into a namespace, checking all of it before writing any of it.

Import checks the whole file before it writes anything: the format, every record
(schema, scope, principal, text against hash, tombstone consistency, duplicates),
that every ``supersedes``/``depends_on`` id resolves in the file or the target
namespace, and that the file's embedder is the target namespace's. The write is
one audit record.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path
from typing import Any, Literal

from mragent.apps.transfer.export import pages
from mragent.apps.transfer.file import MemoriesFile, read_memories_file
from mragent.apps.transfer.write import Plan, write_merge, write_replace
from mragent.core.corpus import Content, Corpus, validate_namespace
from mragent.core.embedding import Embedder, check_identity, embedder_from_spec
from mragent.core.errors import ConfigError, CorpusError, EmbeddingMismatch, WriteRefused
from mragent.core.extract import Extractor, RuleExtractor
from mragent.core.store.base import GraphStore
from mragent.memory.aliases import link_aliases
from mragent.memory.audit import AuditLog
from mragent.memory.audited import audited
from mragent.memory.ingest import (
    WriteStamp,
    build_batches,
    forget_key,
    prepare_write,
    refuse_forgotten,
)
from mragent.memory.principal import Principal
from mragent.memory.ranks import rank_namespace
from mragent.memory.records import MemoryRecord

ImportMode = Literal["merge", "replace"]
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
    readmit: bool = False,
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
        readmit: Import live versions whose text the namespace has forgotten.

    Raises:
        ConfigError: missing file, bad mode, ``replace`` unconfirmed, or an
            embedder that cannot be rebuilt from the file.
        TransferFileError: not JSON or not the format (moved aside).
        CorpusError: an invalid record or an unresolved reference, by index.
        EmbeddingMismatch: the file's embedder differs from ``embedder`` or from
            the namespace's stamp; both are named.
        WriteRefused: an agent principal, a key the namespace holds under
            another id, or a live version whose text the namespace forgot (unless
            ``readmit``).
        AccessDenied: a scope of the file outside the principal's write grants.
    """
    _check_request(ns, mode, confirm_replace, principal)
    data = read_memories_file(path)
    for scope in data.scopes:
        principal.check_write(scope)
    embedder, stamp = _target_embedder(store, ns, data, embedder)
    # Checked and written under the log's lock: no forget or write slips in between.
    with audit.exclusive():
        readmitted = _refuse_forgotten(store, ns, data, readmit)
        plan = _plan(store, ns, data, mode, embedder, extractor or RuleExtractor(), principal)
        if not plan.writes and (mode == "merge" or stamp is None):
            # Nothing to write and (replace) nothing to delete: no write, no audit record.
            return ImportReport(data.path, ns, mode, len(data.records), 0, plan.skipped, 0, 0, 0)
        if plan.to_write:
            assert embedder is not None  # records imply an embedder identity (validated)
            prepare_write(store, ns, embedder)
        return _apply(store, ns, data, mode, plan, principal, audit, readmitted)


def _refuse_forgotten(store: GraphStore, ns: str, data: MemoriesFile, readmit: bool) -> bool:
    """Refuse live versions whose text a scope of ``ns`` has forgotten, unless ``readmit``."""
    readmitted = False
    for scope in data.scopes:
        hashes: dict[str, int] = {}
        keys: dict[str, int] = {}
        for index, record in enumerate(data.records):
            if record.scope == scope and not record.forgotten and record.text is not None:
                hashes.setdefault(record.hash, index)
                keys.setdefault(forget_key(record.text), index)
        name = str(data.path)
        readmitted |= refuse_forgotten(store, ns, scope, keys, readmit, name, hashes)
    return readmitted


def _target_embedder(
    store: GraphStore, ns: str, data: MemoriesFile, given: Embedder | None
) -> tuple[Embedder | None, str | None]:
    """The embedder the file's records are written with, and the namespace's stamp.

    Raises:
        EmbeddingMismatch: when the file's embedder is not ``given`` or the stamp.
    """
    name = str(data.path)
    space = store.run("get_space", {"ns": ns})
    stamp = space[0]["embedder"] if space else None
    embedder = given
    if data.embedder is not None:
        embedder = _embedder_for(name, data.embedder, given)
        try:
            check_identity(ns, stamp, embedder.identity)
        except EmbeddingMismatch as exc:
            raise EmbeddingMismatch(f"{name}: {exc}") from None
    # else: the export of a namespace never written; it holds no memories (validated).
    return embedder, stamp


def _check_request(ns: str, mode: str, confirm_replace: bool, principal: Principal) -> None:
    """Refuse a bad namespace or mode, an unconfirmed replace and an agent principal."""
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


def _apply(
    store: GraphStore,
    ns: str,
    data: MemoriesFile,
    mode: ImportMode,
    plan: Plan,
    principal: Principal,
    audit: AuditLog,
    readmitted: bool,
) -> ImportReport:
    """Write the plan under one audit record, link its tags' aliases, then re-rank
    the namespace's edges."""
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
    if readmitted:
        detail["readmit"] = True
    target = data.path.name
    deleted = 0
    with audited(store, audit, ns, principal, "import", target, None, data.digest, detail):
        if mode == "replace":
            deleted = write_replace(store, ns, list(data.scopes), plan, audit.seal)
        else:
            write_merge(store, ns, plan, audit.seal)
        for scope, batches in plan.batches.items():
            link_aliases(store, ns, scope, [tag["name"] for b in batches for tag in b.tags])
        rank_namespace(store, ns)
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
) -> Plan:
    """Resolve references, find what exists, build the ingest batches: no writes."""
    name = str(data.path)
    in_file = {record.id: record.scope for record in data.records}
    referenced = {ref for record in data.records for _, ref in _references(record)}
    existing: set[tuple[str, str]] = set()  # (scope, id) in the target
    keys: dict[tuple[str, str], str] = {}  # (scope, key) -> id, in the target
    unlinked: set[tuple[str, str]] = set()  # live in the target, but no tag: a failed merge
    linked: dict[tuple[str, str], set[tuple[str, str]]] = {}  # (scope, id) -> its edges
    if mode == "merge":  # replace deletes these scopes: only the file counts
        wanted_ids = sorted(set(in_file) | referenced)
        wanted_keys = sorted({record.key for record in data.records})
        for row in _existing(store, ns, list(data.scopes), wanted_ids, wanted_keys):
            existing.add((row["scope"], row["id"]))
            keys[(row["scope"], row["key"])] = row["id"]
            if not row["forgotten"] and not row["linked"]:
                unlinked.add((row["scope"], row["id"]))
            linked[(row["scope"], row["id"])] = {
                *(("supersedes", ref) for ref in row["supersedes"]),
                *(("depends_on", ref) for ref in row["depends_on"]),
            }
    to_write: list[MemoryRecord] = []
    relink: list[MemoryRecord] = []
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
            # What a failed merge left out: its edges, and for a live version its tags.
            have = linked.get((record.scope, record.id), set())
            missing = [e for e in _edges(record) if (e["kind"], e["dst"]) not in have]
            edges[record.scope].extend(missing)
            if (record.scope, record.id) in unlinked and not record.forgotten:
                relink.append(record)
            continue
        holder = keys.get((record.scope, record.key))
        if holder is not None:
            raise WriteRefused(
                f"{name}: record {index}: key {record.key!r} is held in scope {record.scope!r} "
                f"of namespace {ns!r} by another id ({holder}); import into another namespace "
                "or use --mode replace"
            )
        to_write.append(record)
        edges[record.scope].extend(_edges(record))
    batches = _ingest_batches([*to_write, *relink], embedder, extractor, principal, name)
    skipped = len(data.records) - len(to_write)
    return Plan(to_write, skipped, batches, dict(edges))


def _edges(record: MemoryRecord) -> list[dict[str, str]]:
    return [{"src": record.id, "dst": ref, "kind": kind} for kind, ref in _references(record)]


def _references(record: MemoryRecord) -> list[tuple[str, str]]:
    """(kind, id) of every edge a version starts: its SUPERSEDES and DEPENDS_ON targets."""
    return [("supersedes", ref) for ref in record.supersedes] + [
        ("depends_on", ref) for ref in record.depends_on
    ]


def _existing(
    store: GraphStore, ns: str, scopes: list[str], ids: list[str], keys: list[str]
) -> Iterator[dict[str, Any]]:
    nothing: list[str] = []
    for id_page, key_page in zip_longest(pages(ids), pages(keys), fillvalue=nothing):
        params = {"ns": ns, "scopes": scopes, "ids": id_page, "keys": key_page}
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
