"""Entity resolution between tags: which names are compared, the alias edges every
write keeps, and the two genes that decide whether and how strongly they are walked."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from mragent.apps.reembed.rewrite import reembed
from mragent.apps.transfer.export import export_memories
from mragent.apps.transfer.importer import import_memories
from mragent.core.aliases import MAX_LONGER, alias_key, name_keys
from mragent.core.corpus import parse_corpus
from mragent.core.embedding.base import EmbedderIdentity
from mragent.core.embedding.hashing import HashingEmbedder
from mragent.core.genome import Genome
from mragent.core.retrieval.cue_search import CueHit
from mragent.core.retrieval.reconstruct import traverse
from mragent.core.store.base import GraphStore
from mragent.core.view import DEFAULT_SCOPE, ReadView
from mragent.memory.aliases import MAX_ALIASES, candidate_pairs, strongest_links
from mragent.memory.audit import AuditLog
from mragent.memory.principal import Principal
from mragent.memory.reader import MemoryReader
from mragent.memory.writer import MemoryWriter
from tests.fixtures import ingest

HUMAN = Principal("human", "test")


class HalfEmbedder(HashingEmbedder):
    """Another identity of the default dimension whose vectors keep half the features:
    other similarities between the same names."""

    def __init__(self) -> None:
        super().__init__()
        self.identity = EmbedderIdentity("test", "half-hashing", self.dimension, True)
        self.spec = "test:half"

    def _embed(self, texts: list[str]) -> np.ndarray:
        vectors = super()._embed(texts).copy()
        vectors[:, self.dimension // 2 :] = 0.0
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return np.ascontiguousarray(vectors / np.where(norms > 0, norms, 1.0))


def test_spelling_variants_fold_to_one_key() -> None:
    assert alias_key("Nintendo Co., Ltd.") == alias_key("NINTENDO") == alias_key("Nintendo")
    assert alias_key("The Beatles") == alias_key("Beatles")
    assert alias_key("Lilu (mythology)") == "lilu"
    assert alias_key("Obama's") == "obama"
    assert alias_key("Barack Obama") != alias_key("Obama")


def test_only_a_person_like_name_is_found_by_its_surname() -> None:
    assert name_keys("Barack Obama").tail == "obama" and not name_keys("Barack Obama").short
    assert name_keys("Obama").short and name_keys("Obama's").short
    assert name_keys("Joannes van der Brugghen").tail == "brugghen"
    # A place and what it qualifies, a pair of names, a number, a lowercase word: none.
    for name in ("Vietnam War", "Chile and Argentina", "12 Monkeys", "Republic of Zimbabwe"):
        assert name_keys(name).tail is None, name
    assert not name_keys("1995").short and not name_keys("the Greatest").short


def _pairs(written: list[str], stored: list[str]) -> set[tuple[str, str]]:
    return candidate_pairs(written, {n: name_keys(n) for n in {*written, *stored}})


def test_the_string_rules_pair_variants_and_a_surname_with_its_person() -> None:
    stored = ["Nintendo Co., Ltd.", "Barack Obama", "Vietnam War", "1995", "12 May 1995"]
    assert _pairs(["NINTENDO", "Obama", "Vietnam"], stored) == {
        ("NINTENDO", "Nintendo Co., Ltd."),
        ("Barack Obama", "Obama"),
    }
    # Written the other way round (the person after the surname), the same pair.
    assert _pairs(["Barack Obama"], ["Obama"]) == {("Barack Obama", "Obama")}
    # A year is no short name of a date.
    assert _pairs(["1995"], ["12 May 1995"]) == set()


def test_a_surname_many_people_share_names_no_one() -> None:
    people = [f"{first} Smith" for first in ("John", "Anna", "Maria", "Peter", "Susan")]
    assert len(people) > MAX_LONGER
    assert _pairs(["Smith"], people) == set()
    assert _pairs(["Smith"], people[:MAX_LONGER]) == {(p, "Smith") for p in people[:3]}


# The company's passage is reachable from the cue "NINTENDO" only through an alias:
# the game's passage names the company by another spelling, and nothing else links them.
CORPUS = {
    "contents": [
        {
            "id": "company",
            "title": "Nintendo Co., Ltd.",
            "tags": ["Nintendo Co., Ltd."],
            "cues": [],
            "text": "The company is based in Kyoto.",
        },
        {
            "id": "game",
            "title": "Super Mario Bros.",
            "tags": ["Super Mario Bros.", "NINTENDO"],
            "cues": [],
            "text": "A platform game released in 1985.",
        },
        {
            "id": "president",
            "title": "Barack Obama",
            "tags": ["Barack Obama"],
            "cues": [],
            "text": "He served two terms.",
        },
        {
            "id": "memoir",
            "title": "Dreams from My Father",
            "tags": ["Dreams from My Father", "Obama"],
            "cues": [],
            "text": "A memoir published in 1995.",
        },
    ]
}


@pytest.fixture
def memory(store: GraphStore) -> Iterator[MemoryReader]:
    ns = f"alias-{uuid.uuid4().hex[:8]}"
    ingest(store, parse_corpus(CORPUS), ns)
    yield MemoryReader(store, ns)
    store.run("delete_namespace", {"ns": ns})


def _cue(memory: MemoryReader, text: str) -> CueHit:
    cues = memory.index.cues
    slot = next(s for s in range(len(cues.ids)) if cues.texts[s] == text)
    return CueHit(cues.ids[slot], text, 1.0, 1.0, 1.0, 1.0)


def _reached(
    memory: MemoryReader, cue: str, genome: Genome, link_fanout: int | None = None
) -> dict[str, float]:
    """The contents one traversal from ``cue`` reaches, with their evidence."""
    found = traverse(
        memory.store, memory.ns, ReadView(), [_cue(memory, cue)], genome, link_fanout=link_fanout
    )
    assert found is not None
    return {c.key: c.evidence for c in found.candidates}


def test_ingest_links_the_names_of_one_thing_and_the_alias_is_walked(
    memory: MemoryReader,
) -> None:
    base = Genome(traversalDepth=2, pruneThreshold=0.0, rerank="none")
    assert "company" not in _reached(memory, "NINTENDO", base)  # aliasWeight 0: not walked
    reached = _reached(memory, "NINTENDO", base.replace(aliasWeight=0.9, aliasThreshold=0.5))
    assert "company" in reached
    # The weight gene scales the alias hop's evidence (the decay of a second hop apart).
    weaker = _reached(memory, "NINTENDO", base.replace(aliasWeight=0.3, aliasThreshold=0.5))
    assert weaker["company"] == pytest.approx(reached["company"] / 3)


def test_the_threshold_gene_admits_an_alias_by_its_name_similarity(memory: MemoryReader) -> None:
    # "Obama" / "Barack Obama" is a short-name pair: its similarity is the names'
    # embeddings', below 1 (a spelling variant's is 1.0).
    walk = Genome(traversalDepth=2, pruneThreshold=0.0, aliasWeight=0.9, rerank="none")
    assert "president" in _reached(memory, "Obama", walk.replace(aliasThreshold=0.05))
    assert "president" not in _reached(memory, "Obama", walk.replace(aliasThreshold=1.0))
    assert "company" in _reached(memory, "NINTENDO", walk.replace(aliasThreshold=1.0))
    # A later round walks aliases alone beyond its entry tags (no co-occurrence link):
    # the alias hop is still taken.
    assert "company" in _reached(memory, "NINTENDO", walk, link_fanout=0)
    assert "company" not in _reached(memory, "NINTENDO", walk.replace(aliasWeight=0.0), 0)


def test_every_write_keeps_the_aliases(store: GraphStore, audit_log_path: Path) -> None:
    ns = f"alias-{uuid.uuid4().hex[:8]}"
    ingest(store, parse_corpus({"contents": CORPUS["contents"][:1]}), ns)
    writer = MemoryWriter(store, ns, audit=AuditLog(audit_log_path))
    walk = Genome(traversalDepth=2, pruneThreshold=0.0, aliasWeight=0.9, aliasThreshold=0.5)
    try:
        # A remembered memory naming the company another way is linked to it at once.
        written = writer.remember(
            "Donkey Kong was released in 1981.", principal=HUMAN,
            title="Donkey Kong", tags=["Donkey Kong", "NINTENDO"], scope=DEFAULT_SCOPE,
        )  # fmt: skip
        reader = MemoryReader(store, ns)
        assert "company" in _reached(reader, "NINTENDO", walk)
        # Forgotten and purged, its tag "NINTENDO" (and its alias edges) are gone.
        writer.purge(written.lineage, principal=HUMAN, reason="test")
        names = {row["name"] for row in store.run("tag_names", {"ns": ns})}
        assert "NINTENDO" not in names
    finally:
        store.run("delete_namespace", {"ns": ns})


def test_no_tag_gets_more_than_the_cap_of_aliases_from_one_write() -> None:
    similar = [("Smith", f"Smith {i}", 0.5 + i / 100) for i in range(MAX_ALIASES + 3)]
    links = strongest_links(similar)
    out_of_smith = [(dst, s) for src, dst, s in links if src == "Smith"]
    assert len(out_of_smith) == MAX_ALIASES
    assert out_of_smith[0] == (f"Smith {MAX_ALIASES + 2}", 0.5 + (MAX_ALIASES + 2) / 100)
    # Each longer name links back to the short one: both ways of every pair.
    assert {(src, dst) for src, dst, _ in links if dst == "Smith"} == {
        (f"Smith {i}", "Smith") for i in range(MAX_ALIASES + 3)
    }


def test_a_write_is_sent_back_few_of_a_surname_many_share(store: GraphStore) -> None:
    # Six Smiths and two Joneses stored: a surname's lookup returns all of a few and
    # MAX_LONGER + 1 of many (enough to tell them apart), so a write's cost does not
    # grow with the people of a common surname.
    smiths = [f"{first} Smith" for first in ("John", "Anna", "Maria", "Peter", "Susan", "Carl")]
    joneses = ["Ada Jones", "Tom Jones"]
    contents = [
        {"id": f"p{i}", "title": name, "tags": [name], "cues": [], "text": f"{name} lived."}
        for i, name in enumerate([*smiths, *joneses, "Smith", "Jones"])
    ]
    ns = f"alias-{uuid.uuid4().hex[:8]}"
    ingest(store, parse_corpus({"contents": contents}), ns)
    try:
        params = {"ns": ns, "scope": DEFAULT_SCOPE, "cap": MAX_LONGER + 1}
        rows = store.run("tag_alias_people", {**params, "tails": ["jones", "smith"]})
        names = [row["name"] for row in rows]
        assert sorted(n for n in names if n.endswith("Jones")) == joneses
        assert len([n for n in names if n.endswith("Smith")]) == MAX_LONGER + 1
        linked = _links(store, ns)
        assert {("Ada Jones", "Jones"), ("Jones", "Tom Jones")} <= set(linked)
        assert not any("Smith" in pair for pair in linked)  # too many to name one
    finally:
        store.run("delete_namespace", {"ns": ns})


def _links(store: GraphStore, ns: str) -> dict[tuple[str, str], float]:
    return {(r["src"], r["dst"]): r["similarity"] for r in store.run("tag_aliases", {"ns": ns})}


def test_import_links_and_reembed_remeasures(
    store: GraphStore, memory: MemoryReader, tmp_path: Path, audit_log_path: Path
) -> None:
    ingested = _links(store, memory.ns)
    assert ingested[("NINTENDO", "Nintendo Co., Ltd.")] == 1.0
    assert 0 < ingested[("Barack Obama", "Obama")] < 1.0
    # Exported and imported into a new namespace: the same links, measured alike.
    other = f"alias-{uuid.uuid4().hex[:8]}"
    path = tmp_path / "memories.json"
    export_memories(store, memory.ns, path, scopes=[DEFAULT_SCOPE])
    try:
        import_memories(store, other, path, principal=HUMAN, audit=AuditLog(audit_log_path))
        assert _links(store, other) == ingested
    finally:
        store.run("delete_namespace", {"ns": other})
    # Re-embedded with other vectors, a short name's similarity is measured again.
    reembed(store, memory.ns, HalfEmbedder(), principal=HUMAN, audit=AuditLog())
    again = _links(store, memory.ns)
    assert again.keys() == ingested.keys()
    assert again[("NINTENDO", "Nintendo Co., Ltd.")] == 1.0
    assert again[("Barack Obama", "Obama")] != ingested[("Barack Obama", "Obama")]
