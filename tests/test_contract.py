"""Backend contract suite: written once, run against every reachable engine."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import math
import random
import uuid
from collections.abc import Iterator

import numpy as np
import pytest

from mragent.apps.evaluate import judge
from mragent.core.corpus import Corpus, Question, load_corpus, parse_corpus, reference_corpus_path
from mragent.core.embedding import HashingEmbedder
from mragent.core.errors import EmbeddingMismatch, QueryError
from mragent.core.extract import RuleExtractor
from mragent.core.genome import PRESETS, Genome
from mragent.core.retrieval.cue_search import CueHit
from mragent.core.retrieval.reconstruct import traverse
from mragent.core.store import open_store
from mragent.core.store.base import GraphStore
from mragent.core.view import ReadView
from mragent.evolution.encoding import decode, random_genotype
from mragent.memory.audit import AuditLog
from mragent.memory.ingest import WriteStamp, build_batches, namespace_stats, prepare_write
from mragent.memory.reader import MemoryReader
from tests.conftest import unavailable
from tests.fixtures import CHAIN, INJECTIONS, TESTER, feed_page, ingest

pytestmark = pytest.mark.backend


def _cues(store: GraphStore, ns: str) -> list[dict]:
    """Every cue of the namespace, from the change feed's first page."""
    return feed_page(store, "index_cues", ns)


def _cue_id(store: GraphStore, ns: str, text: str) -> str:
    return next(r["id"] for r in _cues(store, ns) if r["text"] == text)


def _traverse(
    store: GraphStore, ns: str, cue: str, depth: int, fanout: int = 8, prune: float = 0.0
) -> list[tuple[str, float, int, int]]:
    genome = Genome(traversalDepth=depth, tagFanout=fanout, pruneThreshold=prune, maxContent=20)
    hit = CueHit(_cue_id(store, ns, cue), cue, 0.0, 0.0, 1.0, 1.0)
    found = traverse(store, ns, ReadView(), [hit], genome, bridges=False)
    assert found is not None and found.entries == [hit]
    return [(c.key, round(c.evidence, 6), c.hops, c.paths) for c in found.candidates]


def test_schema_is_idempotent(store: GraphStore) -> None:
    store.ensure_schema(256)
    store.ensure_schema(256)  # a second call must not fail on existing indexes


def test_ingest_builds_the_graph_model_and_is_idempotent(store: GraphStore, ns: str) -> None:
    corpus = parse_corpus(CHAIN)
    first = ingest(store, corpus, ns)
    # 4 contents, 4 tags, 4 tag cues; refs: 2+2+1+1; Cue->Tag 4; Tag->Tag:
    # Acme<->Jane Roe, Jane Roe<->Lisbon.
    assert first.nodes_after == {"cues": 4, "tags": 4, "contents": 4, "links": 8, "refs": 6}
    second = ingest(store, corpus, ns)
    assert second.nodes_after == first.nodes_after
    ids = {r["id"] for r in store.run("content_snapshot", {"ns": ns, **ReadView().params()})}
    assert len(ids) == 4 and all(len(i) == 36 and i[14] == "4" for i in ids)  # uuid4
    # Re-ingesting bumped the version but stamped nothing new: the feed has nothing after it.
    version = store.run("get_space", {"ns": ns})[0]["version"]
    assert version >= 2
    assert feed_page(store, "index_cues", ns, since=version - 1) == []
    assert len(feed_page(store, "index_cues", ns)) == 4


def _expected_rows(depth: int) -> list[tuple[str, float, int, int]]:
    """The CHAIN fixture's traversal from cue "Acme", derived by hand from ingest's rules.

    4 contents; tag frequency: Acme 1, Jane Roe 2, Lisbon 2. idf(df) = ln(1 + 4/df) / ln 5.
    Acme -> Jane Roe: sqrt(1/1) * idf(2); Jane Roe -> Acme: 0.8 * idf(1);
    Jane Roe -> Lisbon: sqrt(1/2) * idf(2); Lisbon -> Jane Roe: 0.8 * idf(2).
    REFERENCES: 1.0 from the primary tag, 0.6 from a mentioned one; decay 0.8 per hop
    beyond the first. Paths that revisit a node (Acme -> Jane Roe -> Acme) do not count.
    """
    idf2 = math.log(3) / math.log(5)
    acme_jr, jr_lisbon = idf2, math.sqrt(0.5) * idf2
    rows = {
        1: [("acme", 1.0, 1, 1)],
        2: [("acme", 1.0, 1, 2), ("roe", acme_jr * 0.8, 2, 1)],
        3: [
            ("acme", 1.0, 1, 2),
            ("roe", acme_jr * 0.8, 2, 2),
            ("lisbon", acme_jr * jr_lisbon * 0.8**2, 3, 1),
        ],
    }[depth]
    return [(key, round(ev, 6), hops, paths) for key, ev, hops, paths in rows]


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_traversal_returns_the_same_rows_on_every_engine(
    store: GraphStore, ns: str, depth: int
) -> None:
    ingest(store, parse_corpus(CHAIN), ns)
    assert _traverse(store, ns, "Acme", depth) == _expected_rows(depth)


def _bridged(store: GraphStore, ns: str, seed_key: str, seed_title: str) -> list[str]:
    """The keys the bridge walk reaches from one seed passage (entering at its title cue)."""
    ids = {
        r["key"]: r["id"] for r in store.run("content_snapshot", {"ns": ns, **ReadView().params()})
    }
    hit = CueHit(_cue_id(store, ns, seed_title), seed_title, 0.0, 1.0, 1.0, 1.0, seed=ids[seed_key])
    found = traverse(store, ns, ReadView(), [hit], Genome(traversalDepth=2))
    assert found is not None and found.seeds
    return sorted(content.key for _, content in found.bridges)


def test_tags_say_whether_they_are_a_contents_primary_and_the_bridge_walk_reads_that(
    store: GraphStore, ns: str
) -> None:
    flags_query = (
        "MATCH (t:Tag) WHERE t.ns = $ns "
        "OPTIONAL MATCH (t)-[r:REFERENCES]->(:Content) WHERE r.weight >= 1.0 "
        "RETURN t.name AS name, t.primary AS flag, count(r) > 0 AS primary"
    )

    def flags() -> dict[str, tuple[bool | None, bool]]:
        rows = store._execute("flags", flags_query, {"ns": ns})
        return {row["name"]: (row["flag"], row["primary"]) for row in rows}

    without_lisbon = copy.deepcopy(CHAIN)
    without_lisbon["contents"] = [c for c in CHAIN["contents"] if c["id"] != "lisbon"]
    ingest(store, parse_corpus(without_lisbon), ns)
    assert flags()["Lisbon"] == (False, False)
    assert all(flag == primary for flag, primary in flags().values())
    assert _bridged(store, ns, "roe", "Jane Roe") == []
    ingest(store, parse_corpus(CHAIN), ns)  # Lisbon becomes a content's primary tag
    assert flags()["Lisbon"] == (True, True)
    assert all(flag == primary for flag, primary in flags().values())
    assert _bridged(store, ns, "roe", "Jane Roe") == ["lisbon"]
    assert _bridged(store, ns, "acme", "Acme") == ["roe"]
    # The walk reads the flag: a tag marked as no content's primary is passed over...
    mark = "MATCH (t:Tag) WHERE t.ns = $ns AND t.name = 'Jane Roe' SET t.primary = $flag"
    store._execute("mark", mark, {"ns": ns, "flag": False})
    assert _bridged(store, ns, "acme", "Acme") == []
    # ...and one written before the flag existed (none) is read as it always was.
    store._execute("mark", mark, {"ns": ns, "flag": None})
    assert _bridged(store, ns, "acme", "Acme") == ["roe"]


def test_fanout_follows_link_ranks(store: GraphStore, ns: str) -> None:
    data = copy.deepcopy(CHAIN)
    data["contents"][0]["tags"] = ["Acme", "Jane Roe", "Zeta"]
    data["links"] = [{"from": "Acme", "to": "Zeta", "weight": 0.1}]
    ingest(store, parse_corpus(data), ns)
    wide = {key for key, *_ in _traverse(store, ns, "Acme", 2, fanout=8)}
    narrow = {key for key, *_ in _traverse(store, ns, "Acme", 2, fanout=1)}
    assert "zeta" in wide and "zeta" not in narrow and "roe" in narrow


def test_prune_threshold_drops_weak_paths(store: GraphStore, ns: str) -> None:
    ingest(store, parse_corpus(CHAIN), ns)
    keys = [key for key, *_ in _traverse(store, ns, "Acme", 3, prune=0.3)]
    assert keys == ["acme", "roe"]


@pytest.mark.parametrize("payload", INJECTIONS)
def test_injection_payloads_are_stored_as_data(store: GraphStore, ns: str, payload: str) -> None:
    data = {
        "contents": [
            {"id": payload, "title": payload, "tags": [payload, "Safe"], "text": payload},
            {"id": "safe", "title": "Safe", "tags": ["Safe"], "text": "An ordinary memory."},
        ]
    }
    ingest(store, parse_corpus(data), ns)
    stats = namespace_stats(store, ns)
    assert stats["contents"] == 2 and stats["tags"] == 2
    rows = {r["key"]: r for r in store.run("content_snapshot", {"ns": ns, **ReadView().params()})}
    assert rows[payload]["text"] == payload and rows[payload]["title"] == payload
    assert payload in {r["text"] for r in _cues(store, ns)}


def test_injection_in_namespace_parameter_stays_data(store: GraphStore, ns: str) -> None:
    # The CLI refuses such a namespace; below that, the store must still treat it as a value.
    evil = ns + "' OR 1=1 //"
    assert store.run("namespace_stats", {"ns": evil})[0]["contents"] == 0
    ingest(store, parse_corpus(CHAIN), ns)
    assert store.run("namespace_stats", {"ns": evil})[0]["contents"] == 0
    store.run("delete_namespace", {"ns": evil})
    assert namespace_stats(store, ns)["contents"] == 4


def test_namespaces_are_isolated(store: GraphStore, ns: str) -> None:
    other = ns + "-b"
    try:
        ingest(store, parse_corpus(CHAIN), ns)
        data = copy.deepcopy(CHAIN)
        data["contents"][2]["text"] = "Lisbon lies on the Douro in namespace B."
        ingest(store, parse_corpus(data), other)
        a = {r["text"] for r in store.run("content_snapshot", {"ns": ns, **ReadView().params()})}
        assert "Lisbon lies on the Tagus." in a and not any("namespace B" in t for t in a)
        assert _traverse(store, ns, "Acme", 3)[-1][0] == "lisbon"
        hits = [CueHit(r["id"], r["text"], 0.0, 0.0, 1.0, 1.0) for r in _cues(store, other)]
        found = traverse(store, ns, ReadView(), hits, Genome(traversalDepth=3, tagFanout=8))
        assert found is not None
        assert (found.entries, found.candidates) == ([], [])  # B's cues cannot open A's memory
    finally:
        store.run("delete_namespace", {"ns": other})


def test_native_vector_index_answers(store: GraphStore, ns: str) -> None:
    ingest(store, parse_corpus(CHAIN), ns)
    memory = MemoryReader(store, ns)
    vector = memory.embedder.embed_queries(["Jane Roe"])[0]
    cues = memory.index.cues
    hits = cues.native_dense(store, ns, ("shared",), vector, cues.admitted(("shared",)), k=2)
    top = max(hits, key=hits.get)
    assert cues.texts[cues.slot_of[top]] == "Jane Roe"
    assert hits[top] == pytest.approx(1.0, abs=1e-3)


def test_mixed_embedder_write_is_refused(store: GraphStore, ns: str) -> None:
    ingest(store, parse_corpus(CHAIN), ns)
    with pytest.raises(EmbeddingMismatch, match=r"hashing:word\+char3-blake2:256.*:64"):
        ingest(store, parse_corpus(CHAIN), ns, embedder=HashingEmbedder(64))


class _CountingEmbedder(HashingEmbedder):
    """The hashing embedder, recording every text it is asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        return super().embed_passages(texts)


def test_batches_embed_each_cue_once_and_every_cue_keeps_its_embedding(
    store: GraphStore, ns: str
) -> None:
    counting = _CountingEmbedder()
    ingest(store, parse_corpus(CHAIN), ns, batch_size=1, embedder=counting)
    whole = ns + "-whole"
    try:
        ingest(store, parse_corpus(CHAIN), whole)
        assert namespace_stats(store, ns) == namespace_stats(store, whole)
    finally:
        store.run("delete_namespace", {"ns": whole})
    cues = feed_page(store, "index_cues", ns)
    # CHAIN's contents share tags: a cue met again in a later batch is not embedded again
    # (each content is embedded once too, as a passage).
    texts = {cue["text"] for cue in cues}
    assert sorted(t for t in counting.texts if t in texts) == sorted(texts)
    assert len(counting.texts) == len(cues) + len(CHAIN["contents"])
    assert all(len(cue["embedding"]) == 256 for cue in cues)


# Every edge of a namespace with the keys of its two ends (a cue's text, a tag's name,
# a content's key) and its weight.
_EDGES = (
    "MATCH (s {ns: $ns})-[r]->(t {ns: $ns}) "
    "RETURN type(r) AS kind, labels(s)[0] AS label, coalesce(s.text, s.name, s.key) AS src, "
    "coalesce(t.name, t.key) AS dst, r.weight AS weight"
)


def _edges(store: GraphStore, ns: str, weights: bool = True) -> list[tuple]:
    rows = store._execute("edges", _EDGES, {"ns": ns})
    return sorted(
        (row["kind"], row["label"], row["src"], row["dst"], *([row["weight"]] if weights else []))
        for row in rows
    )


def test_every_edge_joins_the_nodes_its_record_names(store: GraphStore, ns: str) -> None:
    corpus = parse_corpus(CHAIN)
    (whole,) = build_batches(corpus, RuleExtractor(), HashingEmbedder(), WriteStamp(TESTER))
    expected = sorted(
        [("REFERENCES", "Tag", e["tag"], e["content"], e["weight"]) for e in whole.refs]
        + [("LINKED_TO", "Cue", e["cue"], e["tag"], e["weight"]) for e in whole.cue_links]
        + [("LINKED_TO", "Tag", e["src"], e["dst"], e["weight"]) for e in whole.tag_links]
    )
    assert len(whole.contents) > 1 and len(whole.tags) > 1  # positions that could be mixed up
    ingest(store, corpus, ns)
    assert _edges(store, ns) == expected
    # One content a batch: the cues met again are linked by text (sent by an earlier batch).
    batched = ns + "-batched"
    try:
        ingest(store, corpus, batched, batch_size=1)
        assert _edges(store, batched, weights=False) == [edge[:4] for edge in expected]
    finally:
        store.run("delete_namespace", {"ns": batched})


def test_a_batch_without_its_namespace_writes_nothing(store: GraphStore, ns: str) -> None:
    stamp = WriteStamp(TESTER)
    batch = build_batches(parse_corpus(CHAIN), RuleExtractor(), HashingEmbedder(), stamp)[0]
    params = batch.params(ns, "shared", AuditLog().seal)
    assert store.run("ingest_batch", params) == []  # no version row
    assert namespace_stats(store, ns)["contents"] == 0


def test_a_failing_batch_writes_nothing(store: GraphStore, ns: str) -> None:
    stamp = WriteStamp(TESTER)
    batch = build_batches(parse_corpus(CHAIN), RuleExtractor(), HashingEmbedder(), stamp)[0]
    prepare_write(store, ns, HashingEmbedder())
    params = batch.params(ns, "shared", AuditLog().seal)
    params["refs"]["weight"][-1] = {"x": 1}  # the batch's last reference cannot be stored
    with pytest.raises(QueryError), store.transaction() as tx:
        tx.run("ingest_batch", params)
    assert namespace_stats(store, ns)["contents"] == 0


def test_reconstruction_runs_end_to_end(store: GraphStore, ns: str) -> None:
    ingest(store, parse_corpus(CHAIN), ns)
    memory = MemoryReader(store, ns)
    shallow = memory.reconstruct(
        "Where was the founder of Acme born?", Genome(traversalDepth=1, cueK=1, hybridAlpha=0.0)
    )
    deep = memory.reconstruct(
        "Where was the founder of Acme born?", Genome(traversalDepth=2, cueK=1, hybridAlpha=0.0)
    )
    assert [c.text for c in shallow.cues] == ["Acme"]
    assert "Lisbon" not in shallow.context.text and "Lisbon" in deep.context.text


# -- one genome, one result, on every engine ------------------------------------------

COMPARED = ("falkordb", "neo4j")
REFERENCE = load_corpus(reference_corpus_path())


def _genomes(count: int) -> list[Genome]:
    """The presets and ``count`` seeded random genomes: every gene at many values."""
    rng = random.Random(15)
    sampled = [decode(random_genotype(rng)) for _ in range(count)]
    return list(dict.fromkeys([*PRESETS.values(), *sampled]))


def _outcomes(memory: MemoryReader, questions: list[Question], genome: Genome) -> list[tuple]:
    """Per question, everything a result is made of: cues, order and scores, context,
    answer, work, R@k (scores exactly: a last-digit difference can flip a near-tie)."""
    out = []
    for question in questions:
        rec = memory.reconstruct(question.question, genome)
        result = judge(question, rec)
        out.append(
            (
                question.id,
                [hit.text for hit in rec.cues],
                rec.retrieved_keys,
                [ranked.score for ranked in rec.ranked],
                rec.context.text,
                result.answer,
                result.work,
                result.recall,
            )
        )
    return out


@pytest.fixture(scope="module")
def engines(engine_urls: dict[str, str | None]) -> Iterator[dict[str, GraphStore]]:
    """An open store on each compared engine at once."""
    for engine in COMPARED:
        if engine_urls[engine] is None:
            unavailable(engine, "nothing answers at its URL")
    with contextlib.ExitStack() as stack:
        yield {e: stack.enter_context(open_store(str(engine_urls[e]))) for e in COMPARED}


@contextlib.contextmanager
def _each_engine(
    engines: dict[str, GraphStore], corpus: Corpus
) -> Iterator[dict[str, MemoryReader]]:
    """``corpus`` ingested on every compared engine, in a different content order on each:
    storage order (and the random ids) must never decide a result."""
    ns = f"t-{uuid.uuid4().hex[:12]}"
    try:
        memories = {}
        for turn, (engine, store) in enumerate(engines.items()):
            contents = corpus.contents if turn % 2 == 0 else corpus.contents[::-1]
            ingest(store, dataclasses.replace(corpus, contents=contents), ns)
            memories[engine] = MemoryReader(store, ns)
        yield memories
    finally:
        for store in engines.values():
            store.run("delete_namespace", {"ns": ns})


@pytest.mark.parametrize(
    ("corpus", "count"), [(parse_corpus(CHAIN), 24), (REFERENCE, 6)], ids=["chain", "reference"]
)
def test_one_genome_gives_identical_results_on_every_engine(
    engines: dict[str, GraphStore], corpus: Corpus, count: int
) -> None:
    with _each_engine(engines, corpus) as memories:
        for genome in _genomes(count):
            falkordb, neo4j = (_outcomes(memories[e], corpus.questions, genome) for e in COMPARED)
            assert falkordb == neo4j, genome
