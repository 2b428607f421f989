"""Ingest: contents -> Cue/Tag/Content records -> batched, idempotent writes.

Weights come from corpus statistics:

* ``Tag -[REFERENCES]-> Content``: 1.0 from the content's primary tag, 0.6 from
  every other tag it mentions.
* ``Tag -[LINKED_TO]-> Tag``: the primary tag of a content links to each tag the
  content mentions, and back (``B`` is mentioned in the passage about ``A``).
  Weight: how often the two co-occur relative to the source's frequency, times
  the target's specificity (IDF), so a link to a rare entity is strong and a
  link to a ubiquitous one weak; the backward link is damped by 0.8. These
  edges are what make bridge questions reachable.
* ``Cue -[LINKED_TO]-> Tag``: every tag has a cue of the same text (1.0); every
  keyword cue links to the primary tag of each content using it, weighted by
  the keyword's IDF.

Every content carries its provenance (:class:`WriteStamp`): the writing
principal, its trust state, its scope, its text hash and its valid and record
times. Every batch is written by one statement (``ingest_batch``), then link
ranks are recomputed once (``rank_links``).
"""

from __future__ import annotations

import hashlib
import math
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mragent.core.corpus import Content, Corpus, Link, validate_namespace
from mragent.core.embedding import Embedder, embed_all, passage_text
from mragent.core.extract import Extraction, Extractor, RuleExtractor
from mragent.core.store.base import GraphStore
from mragent.core.view import DEFAULT_SCOPE, validate_scope
from mragent.memory.audit import AuditLog
from mragent.memory.audited import audited
from mragent.memory.principal import Principal
from mragent.memory.space import STORE_SCHEMA, check_space, space_embedder

BATCH_SIZE = 500
# Bumped whenever ingest writes a different graph for the same input.
# 6: every content carries its passage embedding.
GRAPH_LAYOUT = "6"
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
    cues: list[dict[str, Any]] = field(default_factory=list)
    refs: list[dict[str, Any]] = field(default_factory=list)
    cue_links: list[dict[str, Any]] = field(default_factory=list)
    tag_links: list[dict[str, Any]] = field(default_factory=list)
    supersedes: list[dict[str, Any]] = field(default_factory=list)
    depends: list[dict[str, Any]] = field(default_factory=list)

    def params(self, ns: str, scope: str) -> dict[str, Any]:
        return {
            "ns": ns,
            "scope": scope,
            "contents": self.contents,
            "tags": self.tags,
            "cues": self.cues,
            "refs": self.refs,
            "cue_links": self.cue_links,
            "tag_links": self.tag_links,
            "supersedes": self.supersedes,
            "depends": self.depends,
        }


@dataclass(frozen=True)
class IngestReport:
    """What an ingest did."""

    namespace: str
    contents: int
    batches: int
    nodes_before: dict[str, int]
    nodes_after: dict[str, int]


def content_key(content: Content) -> str:
    """The natural key a content is merged on: its id."""
    return content.key


def text_hash(text: str) -> str:
    """Stable hash of a text (used for dedup and tombstones)."""
    return hashlib.sha256(text.encode()).hexdigest()


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
        "principal": str(stamp.principal),
        "trust": stamp.trust,
        "lineage": node_id,
        "recorded_at": stamp.recorded_at,
        "valid_from": stamp.recorded_at,
        "valid_to": None,
        "given_tags": list(content.tags) if content.tags is not None else None,
        "given_cues": list(content.cues) if content.cues is not None else None,
    }


def build_batches(
    corpus: Corpus,
    extractor: Extractor,
    embedder: Embedder,
    stamp: WriteStamp,
    batch_size: int = BATCH_SIZE,
    progress: Callable[[int, int], None] | None = None,
) -> list[GraphRecords]:
    """Extract, weigh and split a corpus into self-contained batches, then embed them.

    Each batch carries every node its edges name, so a batch never depends on
    a later one; nodes repeated across batches merge onto the same node.

    Args:
        progress: Called as ``progress(done, total)`` in texts while embedding.
    """
    extractions = extractor.extract(corpus.contents)
    stats = _CorpusStats.of(extractions)
    explicit = defaultdict(list)
    for link in corpus.links:
        explicit[link.src].append(link)
    batches = []
    for start in range(0, len(corpus.contents), batch_size):
        pairs = zip(
            corpus.contents[start : start + batch_size],
            extractions[start : start + batch_size],
            strict=True,
        )
        batches.append(_batch(pairs, corpus.name, stamp, stats, explicit))
    _embed(batches, embedder, progress)
    return batches


def _embed(
    batches: list[GraphRecords],
    embedder: Embedder,
    progress: Callable[[int, int], None] | None,
) -> None:
    """Give every cue and content of the batches its vector, each distinct text once.

    A cue repeated across batches is embedded once; contents are embedded as
    passages (title and text), cues by the same passage method, as the side a
    question is matched against.
    """
    cues = sorted({cue["text"] for batch in batches for cue in batch.cues})
    contents = [c for batch in batches for c in batch.contents]
    texts = cues + [passage_text(c["title"], c["text"]) for c in contents]
    done = 0

    def advance(count: int) -> None:
        nonlocal done
        done += count
        if progress:
            progress(done, len(texts))

    dimension = embedder.identity.dimension
    vectors = embed_all(embedder.embed_passages, texts, dimension, progress=advance)
    by_cue = {text: vectors[i].tolist() for i, text in enumerate(cues)}
    for batch in batches:
        for cue in batch.cues:
            cue["embedding"] = by_cue[cue["text"]]
    for content, vector in zip(contents, vectors[len(cues) :], strict=True):
        content["embedding"] = vector.tolist()


@dataclass(frozen=True)
class _CorpusStats:
    """The corpus-wide counts link weights come from."""

    n: int
    tag_df: Counter[str]
    kw_df: Counter[str]
    cooc: Counter[tuple[str, str]]

    @classmethod
    def of(cls, extractions: Sequence[Extraction]) -> _CorpusStats:
        tag_df: Counter[str] = Counter()
        kw_df: Counter[str] = Counter()
        cooc: Counter[tuple[str, str]] = Counter()
        for ex in extractions:
            tag_df.update(ex.tags)
            kw_df.update(ex.keywords)
            for other in ex.tags[1:]:
                cooc[(ex.primary, other)] += 1
        return cls(len(extractions), tag_df, kw_df, cooc)

    def idf(self, df: int) -> float:
        """Specificity in [0, 1]: 1 for a term in one content of many."""
        max_idf = math.log(1 + self.n)
        return math.log(1 + self.n / df) / max_idf if max_idf else 1.0


def _batch(
    pairs: Iterable[tuple[Content, Extraction]],
    source: str,
    stamp: WriteStamp,
    stats: _CorpusStats,
    explicit: dict[str, list[Link]],
) -> GraphRecords:
    """One batch: its contents and every node and weighted edge they give rise to."""
    batch = GraphRecords()
    tags: set[str] = set()
    cue_links: dict[tuple[str, str], float] = {}
    tag_links: dict[tuple[str, str], float] = {}
    idf, tag_df = stats.idf, stats.tag_df
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
            strength = stats.cooc[(ex.primary, other)] / tag_df[ex.primary]
            forward = round(strength**0.5 * idf(tag_df[other]), 6)
            backward = round(BACKWARD_DAMPING * idf(tag_df[ex.primary]), 6)
            tag_links[(ex.primary, other)] = max(tag_links.get((ex.primary, other), 0), forward)
            tag_links[(other, ex.primary)] = max(tag_links.get((other, ex.primary), 0), backward)
        for word in ex.keywords:
            cue_links[(word, ex.primary)] = round(idf(stats.kw_df[word]), 6)
        for link in explicit.get(ex.primary, []):
            tags.update((link.src, link.dst))
            cue_links[(link.dst, link.dst)] = 1.0
            tag_links[(link.src, link.dst)] = link.weight
    _add_nodes_and_edges(batch, tags, cue_links, tag_links)
    return batch


def _add_nodes_and_edges(
    batch: GraphRecords,
    tags: set[str],
    cue_links: dict[tuple[str, str], float],
    tag_links: dict[tuple[str, str], float],
) -> None:
    """Fill in the batch's cues (their vectors come later), tags and links, in a stable order."""
    batch.cues = [{"text": text, "id": new_id()} for text in sorted({cue for cue, _ in cue_links})]
    batch.tags = [{"name": tag, "id": new_id()} for tag in sorted(tags)]
    batch.cue_links = [{"cue": c, "tag": t, "weight": w} for (c, t), w in sorted(cue_links.items())]
    batch.tag_links = [
        {"src": s, "dst": d, "weight": w} for (s, d), w in sorted(tag_links.items()) if s != d
    ]


def ingest(
    store: GraphStore,
    corpus: Corpus,
    ns: str,
    *,
    principal: Principal,
    audit: AuditLog,
    scope: str = DEFAULT_SCOPE,
    extractor: Extractor | None = None,
    embedder: Embedder | None = None,
    batch_size: int = BATCH_SIZE,
    progress: Callable[[str, int, int], None] | None = None,
) -> IngestReport:
    """Write a validated corpus into namespace ``ns``, scope ``scope``.

    Idempotent: nodes merge on natural keys, so ingesting the same corpus twice
    adds nothing. Each batch is one atomic statement. The contents start
    accepted unless ``principal`` is an agent the namespace does not trust.

    Args:
        embedder: Default: the namespace's stamped embedder, or the default
            embedder for a new namespace.
        progress: Called as ``progress(stage, done, total)``: stage ``embedding``
            counts texts, ``writing`` counts batches.

    Raises:
        CorpusError: for an invalid namespace.
        ConfigError: for an invalid scope.
        EmbeddingMismatch: when ``ns`` was written with another embedder.
    """
    validate_namespace(ns)
    validate_scope(scope)
    rows = store.run("get_space", {"ns": ns})
    embedder = space_embedder(ns, rows[0] if rows else None, embedder, "write")
    space = prepare_write(store, ns, embedder)
    trust = "accepted" if principal.writes_accepted(space.get("trusted") or []) else "pending"
    stamp = WriteStamp(principal, scope, trust)

    def embedding(done: int, total: int) -> None:
        if progress:
            progress("embedding", done, total)

    extractor = extractor or RuleExtractor()
    batches = build_batches(corpus, extractor, embedder, stamp, batch_size, embedding)
    before = namespace_stats(store, ns)
    # One record for the whole ingest: its "after" hash covers every text in order.
    digest = text_hash("\n".join(record["hash"] for b in batches for record in b.contents))
    detail = {"contents": len(corpus.contents), "scope": scope, "trust": trust}
    with audited(store, audit, ns, principal, "ingest", corpus.name, None, digest, detail):
        for done, batch in enumerate(batches, start=1):
            with store.transaction() as tx:
                tx.run("ingest_batch", batch.params(ns, scope))
            if progress:
                progress("writing", done, len(batches))
        store.run("rank_links", {"ns": ns})
        store.run("rank_references", {"ns": ns})
    return IngestReport(ns, len(corpus.contents), len(batches), before, namespace_stats(store, ns))


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
        }
        store.run("stamp_space", stamp)
        rows = store.run("get_space", {"ns": ns})
    return rows[0]


def namespace_stats(store: GraphStore, ns: str) -> dict[str, int]:
    """Counts of cues, tags, contents, links and references in ``ns``."""
    rows = store.run("namespace_stats", {"ns": ns})
    return {key: int(value) for key, value in rows[0].items()} if rows else {}
