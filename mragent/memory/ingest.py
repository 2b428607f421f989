"""Ingest: contents -> Cue/Tag/Content records -> batched, idempotent writes.

Weights come from corpus statistics:

* ``Tag -[REFERENCES]-> Content``: 1.0 from the content's primary tag, 0.6 from
  every other tag it mentions.
* ``Tag -[LINKED_TO]-> Tag``: the primary tag of a content links to each tag the
  content mentions, and back (``B`` is mentioned in the passage about ``A``).
  Weight: how often the two co-occur relative to the source's frequency, times
  the target's specificity (IDF), so a link to a rare entity is strong and a
  link to a ubiquitous one weak; the backward link is damped by 0.8, and a link
  read both ways over the corpus takes the stronger (:func:`tag_link_weights`). These
  edges are what make bridge questions reachable.
* ``Cue -[LINKED_TO]-> Tag``: every tag has a cue of the same text (1.0); every
  keyword cue links to the primary tag of each content using it, weighted by
  the keyword's IDF.

Every content carries its provenance (:class:`WriteStamp`): the writing
principal, its trust state, its scope, its text hash and its valid and record
times. Every batch is written by one statement (``ingest_batch``), then the
run's tags are linked to the tags naming the same thing
(:func:`~mragent.memory.aliases.link_aliases`) and the edges out of the tags and
cues the run wrote are ranked (:func:`~mragent.memory.ranks.rank_touched`).
"""

from __future__ import annotations

import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, closing, nullcontext
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from mragent.core.aliases import name_keys
from mragent.core.corpus import Content, Corpus, Link, validate_namespace
from mragent.core.embedding import Embedder, embed_all, passage_text
from mragent.core.errors import QueryError, WriteRefused
from mragent.core.extract import Extraction, Extractor, RuleExtractor
from mragent.core.store.base import GraphStore, Statement
from mragent.core.view import DEFAULT_SCOPE, validate_scope
from mragent.memory.aliases import link_aliases
from mragent.memory.audit import AuditLog
from mragent.memory.audited import audited
from mragent.memory.ingest_source import (
    CorpusSource,
    CorpusStats,
    Handle,
    NameHandles,
    NameMarks,
    Tombstones,
    forget_key,
    text_hash,
)
from mragent.memory.principal import Principal
from mragent.memory.ranks import rank_touched
from mragent.memory.space import STORE_SCHEMA, check_space, space_embedder

__all__ = ["forget_key", "text_hash"]  # re-exported: the one text hash every module uses

BATCH_SIZE = 500
T = TypeVar("T")
Sealer = Callable[[str, str, dict[str, Any]], str]
# Bumped whenever ingest writes a different graph for the same input.
# 7: every content carries its passage embedding.
# 8: a tag link weighs the same whatever batch writes it (tag_link_weights).
GRAPH_LAYOUT = "8"
PRIMARY_REF = 1.0
MENTION_REF = 0.6
BACKWARD_DAMPING = 0.8


def new_id() -> str:
    """A random node id (uuid4): never derived from a clock or a counter."""
    return str(uuid.uuid4())


@dataclass(frozen=True)
class WriteStamp:
    """Who writes, into which scope, with which trust, at which record time."""

    principal: Principal
    scope: str = DEFAULT_SCOPE
    trust: str = "accepted"
    recorded_at: float = field(default_factory=time.time)


@dataclass
class GraphRecords:
    """Nodes and edges for one batch, in the shape ``ingest_batch`` takes."""

    contents: list[dict[str, Any]] = field(default_factory=list)
    tags: list[dict[str, Any]] = field(default_factory=list)
    promoted: list[str] = field(default_factory=list)
    cues: list[dict[str, Any]] = field(default_factory=list)
    refs: list[dict[str, Any]] = field(default_factory=list)
    cue_links: list[dict[str, Any]] = field(default_factory=list)
    tag_links: list[dict[str, Any]] = field(default_factory=list)
    supersedes: list[dict[str, Any]] = field(default_factory=list)
    depends: list[dict[str, Any]] = field(default_factory=list)

    def params(self, ns: str, scope: str, seal: Sealer, sent: Sent | None = None) -> dict[str, Any]:
        """The ``ingest_batch`` parameters for ``ns``/``scope``, each content sealed
        by ``seal`` (:meth:`~mragent.memory.audit.AuditLog.seal`).

        The statement looks each node up once and the edges name their ends by
        position in the node lists, so an edge costs no index lookup. A tag or cue an
        edge names but the batch does not carry (sent by an earlier batch of the run)
        goes to ``known_tags`` or ``known_cues`` with its handle when ``sent`` holds
        one (found by a seek), else to ``linked_tags`` or ``linked_cues`` (looked up
        by name), numbered after the batch's own: own, linked, known. So do the
        ``promoted`` tags, whose positions ``promote`` lists. Every content an edge
        names is in the batch.
        """
        contents = [{**content, "seal": seal(ns, scope, content)} for content in self.contents]
        key_at = {content["key"]: i for i, content in enumerate(contents)}
        tag_at = {tag["name"]: i for i, tag in enumerate(self.tags)}
        cue_at = {cue["text"]: i for i, cue in enumerate(self.cues)}
        linked_tags, known_tags = _linked(
            tag_at,
            sent.tags if sent else None,
            self.promoted,
            (ref["tag"] for ref in self.refs),
            (link["tag"] for link in self.cue_links),
            (name for link in self.tag_links for name in (link["src"], link["dst"])),
        )
        linked_cues, known_cues = _linked(
            cue_at, sent.cues if sent else None, (link["cue"] for link in self.cue_links)
        )
        return {
            "ns": ns,
            "scope": scope,
            "contents": contents,
            "tags": self.tags,
            "linked_tags": linked_tags,
            "known_tags": {"handle": list(known_tags.values()), "name": list(known_tags)},
            "promote": [tag_at[name] for name in self.promoted],
            "cues": self.cues,
            "linked_cues": linked_cues,
            "known_cues": {"handle": list(known_cues.values()), "text": list(known_cues)},
            "refs": _columns(self.refs, tag=tag_at, content=key_at, weight=None),
            "cue_links": _columns(self.cue_links, cue=cue_at, tag=tag_at, weight=None),
            "tag_links": _columns(self.tag_links, src=tag_at, dst=tag_at, weight=None),
            "supersedes": self.supersedes,
            "depends": self.depends,
        }


def _linked(
    at: dict[str, int], handles: NameHandles | None, *named: Iterable[str]
) -> tuple[list[str], dict[str, Handle]]:
    """The names in ``named`` that ``at`` does not number yet, in order of first
    appearance, split in two: those ``handles`` holds no handle for, and the others
    with their handles. Each is numbered in ``at`` after those it holds, the first
    list before the second."""
    linked: list[str] = []
    known: dict[str, Handle] = {}
    for names in named:
        for name in names:
            if name in at or name in known:
                continue
            if handles is not None and (handle := handles.handle(name)) is not None:
                known[name] = handle
            else:
                at[name] = len(at)
                linked.append(name)
    for name in known:
        at[name] = len(at)
    return linked, known


def _columns(edges: list[dict[str, Any]], **fields: dict[str, int] | None) -> dict[str, list[Any]]:
    """``edges`` as parallel columns, one per field: a node field becomes the node's
    position in its list (through the field's table), a weight stays as it is."""
    return {
        name: [e[name] for e in edges] if at is None else [at[e[name]] for e in edges]
        for name, at in fields.items()
    }


@dataclass(frozen=True)
class IngestReport:
    """What an ingest did."""

    namespace: str
    contents: int
    batches: int
    nodes_before: dict[str, int]
    nodes_after: dict[str, int]
    bulk: bool = False


def content_key(content: Content) -> str:
    """The natural key a content is merged on: its id."""
    return content.key


def content_record(content: Content, title: str, source: str, stamp: WriteStamp) -> dict[str, Any]:
    """The stored form of one content: text and its whole provenance.

    A new memory is its own lineage (the first version); a correction
    overrides ``lineage`` with the first version's id.
    """
    node_id = new_id()
    return {
        "key": content_key(content),
        "id": node_id,
        "text": content.text,
        "title": title,
        "source": source,
        "hash": text_hash(content.text),
        "fhash": forget_key(content.text),
        "principal": str(stamp.principal),
        "trust": stamp.trust,
        "lineage": node_id,
        "recorded_at": stamp.recorded_at,
        "valid_from": stamp.recorded_at,
        "valid_to": None,
        "given_tags": list(content.tags) if content.tags is not None else None,
        "given_cues": list(content.cues) if content.cues is not None else None,
    }


class Sent:
    """The names earlier batches of one run sent, which a later batch only looks up (by
    the handle its node was given back with, once the batch that sent it is written):
    every cue text, every tag, and the tags marked as some content's primary tag (a tag
    sent as no content's primary is marked primary by a batch where it is one: looked
    up, its flag set, ``promote``). Every other property of a tag or cue is the same
    whichever batch sends it, so each is sent whole once.

    Args:
        stats: The run's finished corpus statistics (names are marked by their numbers).
    """

    def __init__(self, stats: CorpusStats) -> None:
        self.cues = NameHandles(stats)
        self.tags = NameHandles(stats)
        self.primaries = NameMarks(stats)

    def hold(self, batch: GraphRecords, row: dict[str, Any]) -> None:
        """Keep the handles the batch's statement returned (``row``) for the tags and
        cues it sent whole: a later batch finds them by handle (``ingest_known``)."""
        for tag, handle in zip(batch.tags, row["tag_handles"], strict=True):
            self.tags.hold(tag["name"], handle)
        for cue, handle in zip(batch.cues, row["cue_handles"], strict=True):
            self.cues.hold(cue["text"], handle)

    def new_tags(self, tags: Iterable[str], primaries: set[str]) -> tuple[list[str], list[str]]:
        """Those of ``tags`` a batch must send whole, and those an earlier batch sent
        that it must mark primary (``primaries``: the batch's primary tags), each
        marked as sent."""
        new: list[str] = []
        promoted: list[str] = []
        for tag in tags:
            if tag not in self.tags:
                new.append(tag)
            elif tag in primaries and tag not in self.primaries:
                promoted.append(tag)
        self.tags.update(new)
        self.primaries.update(tag for tag in (*new, *promoted) if tag in primaries)
        return new, promoted


def build_batches(
    corpus: Corpus,
    extractor: Extractor,
    embedder: Embedder,
    stamp: WriteStamp,
    batch_size: int = BATCH_SIZE,
) -> list[GraphRecords]:
    """Extract, weigh and split a corpus in memory into self-contained batches.

    Each batch carries every node its edges name, so a batch never depends on
    a later one; nodes repeated across batches merge onto the same node.
    """
    with closing(CorpusSource.of_corpus(corpus, batch_size)) as source:
        source.check(extractor)
        return list(_built(source, stamp, embedder))


def content_batch(
    content: Content, extractor: Extractor, embedder: Embedder, stamp: WriteStamp, source: str
) -> GraphRecords:
    """One content's nodes and edges, embedded: what a single write (remember,
    correct, a restored version) sends, weighed by the content's own statistics.

    Args:
        source: The content's source when it names none (its writer).
    """
    extraction = extractor.fit([content]).extract(content)
    stats = CorpusStats()
    stats.add(extraction)
    batch = _batch([(content, extraction)], source, stamp, stats, {}, None)
    _embed(batch, embedder, {})
    return batch


def _built(
    source: CorpusSource, stamp: WriteStamp, embedder: Embedder, written: Sent | None = None
) -> Iterator[GraphRecords]:
    """The source's batches, built and embedded one at a time (pass 3 of a
    :class:`CorpusSource`).

    Args:
        written: When given, the names earlier batches of this run sent; a batch
            then leaves those out of its node lists (its edges still merge onto
            them), so each cue is embedded and sent once per run, and each tag set
            once (twice if it becomes primary). Only for batches written in order,
            each after every batch before it, under the audit lock (nothing prunes
            a linked node in between).
    """
    explicit = defaultdict(list)
    for link in source.links:
        explicit[link.src].append(link)
    cues: dict[str, np.ndarray] = {}
    for pairs in source.batches():
        batch = _batch(pairs, source.name, stamp, source.stats, explicit, written)
        # With ``written`` no cue comes twice: keeping their vectors would only cost memory.
        _embed(batch, embedder, cues if written is None else {})
        yield batch


def _embed(batch: GraphRecords, embedder: Embedder, cues: dict[str, np.ndarray]) -> None:
    """Give the batch's cues and contents their vectors, by the embedder's passage method.

    Contents are embedded as passages (title and text); cues by the same method,
    as the side a question is matched against. ``cues`` keeps the vectors of the
    cue texts earlier batches embedded: a cue repeated across batches is
    embedded once.
    """
    dimension = embedder.identity.dimension
    new = sorted({cue["text"] for cue in batch.cues} - cues.keys())
    texts = new + [passage_text(c["title"], c["text"]) for c in batch.contents]
    vectors = embed_all(embedder.embed_passages, texts, dimension)
    cues.update(zip(new, vectors[: len(new)], strict=True))
    # float32 vectors as they are: the stores send them without a list of Python floats.
    for cue in batch.cues:
        cue["embedding"] = cues[cue["text"]]
    for content, vector in zip(batch.contents, vectors[len(new) :], strict=True):
        content["embedding"] = vector


def _batch(
    pairs: Iterable[tuple[Content, Extraction]],
    source: str,
    stamp: WriteStamp,
    stats: CorpusStats,
    explicit: dict[str, list[Link]],
    written: Sent | None,
) -> GraphRecords:
    """One batch: its contents and every node and weighted edge they give rise to."""
    batch = GraphRecords()
    tags: set[str] = set()
    cue_links: dict[tuple[str, str], float] = {}
    tag_links: dict[tuple[str, str], float] = {}
    idf = stats.idf
    for content, ex in pairs:
        key = content_key(content)
        batch.contents.append(
            content_record(content, content.title or ex.primary, content.source or source, stamp)
        )
        for tag in ex.tags:
            tags.add(tag)
            weight = PRIMARY_REF if tag == ex.primary else MENTION_REF
            batch.refs.append({"tag": tag, "content": key, "weight": weight})
            cue_links[(tag, tag)] = 1.0
        for other in ex.tags[1:]:
            there, back = tag_link_weights(stats, ex.primary, other)
            tag_links[(ex.primary, other)] = there
            tag_links[(other, ex.primary)] = back
        for word in ex.keywords:
            cue_links[(word, ex.primary)] = round(idf(stats.kw_df[word]), 6)
        for link in explicit.get(ex.primary, []):
            tags.update((link.src, link.dst))
            cue_links[(link.dst, link.dst)] = 1.0
            tag_links[(link.src, link.dst)] = link.weight
    # A link the corpus gives weighs what it says in every batch writing it, even one
    # that only computed it (from a content whose primary tag is its target).
    for src, dst in tag_links:
        for link in explicit.get(src, ()):
            if link.dst == dst:
                tag_links[(src, dst)] = link.weight
    _add_nodes_and_edges(batch, tags, cue_links, tag_links, written)
    return batch


def tag_link_weights(stats: CorpusStats, a: str, b: str) -> tuple[float, float]:
    """The weights of the computed links ``a -> b`` and ``b -> a``. Each is the stronger
    of its two readings over the whole corpus: forward (a content whose primary tag is
    its source mentions its target) and backward (one whose primary tag is its target
    mentions its source).

    They depend on the corpus statistics alone, never on which contents share a batch,
    so a link two batches write gets the same weight from both: the graph is the same
    whatever the batch size.
    """
    idf, tag_df = stats.idf, stats.tag_df
    a_b, b_a = stats.cooc(a, b), stats.cooc(b, a)

    def weight(src: str, dst: str, forward: int, backward: int) -> float:
        there = round((forward / tag_df(src)) ** 0.5 * idf(tag_df(dst)), 6) if forward else 0.0
        back = round(BACKWARD_DAMPING * idf(tag_df(dst)), 6) if backward else 0.0
        return max(there, back)

    return weight(a, b, a_b, b_a), weight(b, a, b_a, a_b)


def _add_nodes_and_edges(
    batch: GraphRecords,
    tags: set[str],
    cue_links: dict[tuple[str, str], float],
    tag_links: dict[tuple[str, str], float],
    written: Sent | None,
) -> None:
    """Fill in the batch's cues (embedded afterwards), tags (each marked when it is
    the primary tag of one of the batch's contents) and links, in a stable order,
    leaving out the cues and tags ``written`` says need not be sent again."""
    linked = {cue for cue, _ in cue_links}
    cue_texts = sorted(linked if written is None else (c for c in linked if c not in written.cues))
    if written is not None:
        written.cues.update(cue_texts)
    batch.cues = [{"text": text, "id": new_id()} for text in cue_texts]
    primaries = {ref["tag"] for ref in batch.refs if ref["weight"] >= PRIMARY_REF}
    names, batch.promoted = (
        (sorted(tags), []) if written is None else written.new_tags(sorted(tags), primaries)
    )
    batch.tags = [
        {"name": tag, "id": new_id(), "primary": tag in primaries, **name_keys(tag).params()}
        for tag in names
    ]
    batch.cue_links = [{"cue": c, "tag": t, "weight": w} for (c, t), w in sorted(cue_links.items())]
    batch.tag_links = [
        {"src": s, "dst": d, "weight": w} for (s, d), w in sorted(tag_links.items()) if s != d
    ]


def ingest(
    store: GraphStore,
    corpus: Corpus | Path,
    ns: str,
    *,
    principal: Principal,
    audit: AuditLog,
    scope: str = DEFAULT_SCOPE,
    extractor: Extractor | None = None,
    embedder: Embedder | None = None,
    batch_size: int = BATCH_SIZE,
    readmit: bool = False,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
) -> IngestReport:
    """Write a corpus into namespace ``ns``, scope ``scope``: one validated in memory,
    or a corpus file, streamed (memory stays bounded by one batch and the corpus
    statistics, however large the file: see :mod:`mragent.memory.ingest_source`).

    Every record is checked before anything is written. Idempotent: nodes merge on
    natural keys, so ingesting the same corpus twice adds nothing. Each batch is one
    atomic statement, and the whole run one audit record. Into a namespace holding
    no cue, tag or content yet the run is a **bulk load**: each batch is written by
    ``ingest_bulk`` (CREATE where nothing can match; the same graph as
    ``ingest_batch``), inside the store's :meth:`~GraphStore.bulk_load` window (no
    AOF rewrite or snapshot on FalkorDB; every batch durable when acknowledged). A
    run stopped midway leaves whole batches; the re-run finds the namespace not
    empty and merges onto them. The contents start
    accepted unless ``principal`` is an agent the namespace does not trust.
    ``embedder`` defaults to the namespace's stamped one (the default embedder for a
    new namespace); each batch is embedded as it is built, and
    ``progress(done, total)`` counts the batches embedded and written. ``workers``
    processes extract a large corpus during the check (spawned: a script calling this
    with more than one must guard its entry point with ``if __name__ == "__main__"``).

    Raises:
        CorpusError: for an invalid namespace, or a bad record of the file (naming
            the file and record).
        ConfigError: for an invalid scope.
        EmbeddingMismatch: when ``ns`` was written with another embedder.
        WriteRefused: when a text is identical to a forgotten memory of the scope
            (unless ``readmit``).
        AccessDenied: for a scope outside the principal's write grants.
    """
    if isinstance(corpus, Corpus):
        source = CorpusSource.of_corpus(corpus, batch_size)
    else:
        source = CorpusSource.of_file(Path(corpus), batch_size)
    validate_namespace(ns)
    validate_scope(scope)
    principal.check_write(scope)
    with closing(source):  # its spilled extractions, if no batch was built
        forgotten = tombstones(store, ns)
        scan = source.check(extractor or RuleExtractor(), forgotten, workers)
        rows = store.run("get_space", {"ns": ns})
        embedder = space_embedder(ns, rows[0] if rows else None, embedder, "write")
        total = -(-scan.count // source.batch_size)
        # Held from the forgotten-text check to the last batch: no forget slips in between.
        with audit.exclusive():
            now = tombstones(store, ns)
            if not (now.keys <= forgotten.keys and now.hashes <= forgotten.hashes):
                source.match(Tombstones(now.keys - forgotten.keys, now.hashes - forgotten.hashes))
            readmitted = refuse_forgotten(
                store, ns, scope, scan.keys, readmit, source.name, scan.hashes
            )
            space = prepare_write(store, ns, embedder)
            accepted = principal.writes_accepted(space.get("trusted") or [])
            stamp = WriteStamp(principal, scope, "accepted" if accepted else "pending")
            before = namespace_stats(store, ns)
            bulk = not any(before.values())
            query = "ingest_bulk" if bulk else "ingest_batch"
            window: AbstractContextManager[None] = store.bulk_load() if bulk else nullcontext()
            detail: dict[str, Any] = {"contents": scan.count, "scope": scope, "trust": stamp.trust}
            if readmitted:
                detail["readmit"] = True
            # One record for the whole ingest: its "after" hash covers every text in order.
            entry = (ns, principal, "ingest", source.name, None, scan.digest, detail)
            with audited(store, audit, *entry), window:
                # Every cue text and tag the run sends (filled as batches are built).
                written = Sent(source.stats)
                built = _built(source, stamp, embedder, written)

                # A bulk batch writes only if the namespace is at the version the batches
                # before it left (each bumps it once): no other write has landed since.
                start = int(space.get("version") or 0) if bulk else None

                def prepared(number: int, batch: GraphRecords) -> tuple[GraphRecords, Statement]:
                    since = None if start is None else start + number
                    params = _query_params(batch, ns, scope, audit, written, since)
                    return batch, store.statement(query, params)

                # Encoded in the worker too: a batch's parameters are megabytes of text.
                statements = map(prepared, count(), built)
                for done, (batch, statement) in enumerate(_ahead(statements), start=1):
                    rows = store.execute(statement)
                    if not rows:
                        raise QueryError(
                            query,
                            f"{source.name}: batch {done}: another writer changed the "
                            "namespace during the load (wrote into it, or deleted it or a tag "
                            "or cue an earlier batch of this ingest wrote); this batch wrote "
                            "nothing: ingest again to complete it",
                        )
                    written.hold(batch, rows[0])
                    if progress:
                        progress(done, total)
                touched = written.tags.sorted()
                link_aliases(store, ns, scope, touched)
                rank_touched(store, ns, scope, touched, written.cues.sorted())
        return IngestReport(ns, scan.count, total, before, namespace_stats(store, ns), bulk)


def _query_params(
    batch: GraphRecords, ns: str, scope: str, audit: AuditLog, sent: Sent, since: int | None
) -> dict[str, Any]:
    """The batch's parameters for ``ingest_batch``, or for ``ingest_bulk`` when
    ``since`` is given (the namespace version the batch must find), the names
    earlier batches wrote found by the handles ``sent`` holds: a corpus batch
    supersedes nothing and names no dependency, which the bulk query does not take."""
    params = batch.params(ns, scope, audit.seal, sent)
    if since is not None:
        others = params.pop("supersedes"), params.pop("depends")
        assert not any(others), "a bulk load writes corpus batches only"
        params["since"] = since
    return params


def tombstones(store: GraphStore, ns: str) -> Tombstones:
    """The text hashes of the memories ``ns`` forgot (``memory_tombstone_hashes``)."""
    rows = store.run("memory_tombstone_hashes", {"ns": ns})
    keys = frozenset(row["fhash"] for row in rows if row["fhash"])
    return Tombstones(keys, frozenset(row["hash"] for row in rows if not row["fhash"]))


def _ahead(items: Iterator[T]) -> Iterator[T]:
    """``items`` in order, each next one made in a worker thread while the caller uses
    the one before: building a batch (extraction, embedding, encoded parameters)
    overlaps the database writing the previous one, and at most two batches are held
    at a time.

    An error making an item is raised where the caller takes it; items are still
    handed over one by one, so a batch is written only after every batch before it.
    """
    with ThreadPoolExecutor(max_workers=1) as worker:
        pending = worker.submit(next, items, None)
        while (item := pending.result()) is not None:
            pending = worker.submit(next, items, None)
            yield item


def refuse_forgotten(
    store: GraphStore,
    ns: str,
    scope: str,
    texts: dict[str, int],
    readmit: bool,
    name: str | None,
    hashes: dict[str, int] | None = None,
) -> bool:
    """Refuse texts a memory of the namespace forgot (in any scope, whitespace
    normalised), unless ``readmit``.

    Args:
        texts: :func:`forget_key` of each text -> index of the record holding it
            (for the message).
        name: The input, for the message (None: one text, no record to name).
        hashes: The exact :func:`text_hash` of each text -> index, matched against
            tombstones written before forget keys were kept.

    Returns:
        Whether some text was re-admitted.

    Raises:
        WriteRefused: naming the record and the forgotten memory (its id only when
            it is in ``scope``: the caller may not read another scope).
    """
    if not texts and not hashes:
        return False
    hits: dict[int, dict[str, Any]] = {}
    for row in store.run("memory_tombstone_hashes", {"ns": ns}):
        at = texts.get(row["fhash"]) if row["fhash"] else (hashes or {}).get(row["hash"])
        if at is not None:
            hits.setdefault(at, row)
    if hits and not readmit:
        first = min(hits)
        row = hits[first]
        where = f"memory {row['lineage']}" if row["scope"] == scope else "in another scope"
        record = f"{name}: record {first}: " if name is not None else ""
        # Named as every surface names it (readmit=True in Python, --readmit on the
        # command line): this layer does not know which one called.
        raise WriteRefused(
            f"{record}identical text was forgotten ({where}); re-admit it explicitly "
            "(readmit) to write it again"
        )
    return bool(hits)


def prepare_write(store: GraphStore, ns: str, embedder: Embedder) -> dict[str, Any]:
    """Check the embedder against the namespace's stamp, ensure the schema, stamp a
    new namespace; return the namespace's settings (``get_space`` row).

    Raises:
        EmbeddingMismatch: when ``ns`` was written with another embedder.
    """
    rows = store.run("get_space", {"ns": ns})
    check_space(ns, rows[0] if rows else None, embedder.identity)
    store.ensure_schema(embedder.identity.dimension)
    if not rows:
        stamp = {
            "ns": ns,
            "embedder": embedder.identity.as_text(),
            "spec": embedder.spec,
            "schema": STORE_SCHEMA,
            "uid": new_id(),
        }
        store.run("stamp_space", stamp)
        rows = store.run("get_space", {"ns": ns})
    return rows[0]


def namespace_stats(store: GraphStore, ns: str) -> dict[str, int]:
    """Counts of cues, tags, contents, links and references in ``ns``."""
    rows = store.run("namespace_stats", {"ns": ns})
    return {key: int(value) for key, value in rows[0].items()} if rows else {}
