"""What the views draw: contents passage seeding brought in, the Browser's Cypher and style.

Seeding is traced on the reference corpus, on a question whose reconstruction
(cueK 12, pruneThreshold 0.6, depth 2) hands synthesis both a seed passage no
cue path reached and a passage only the bridge walk reached. The printed Cypher
is run through each engine's driver, as a person pasting it would.
"""

from __future__ import annotations

import dataclasses
import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from mragent.apps.views.browser_view import CONNECT_OFF, browser_cypher, grass_path, style_command
from mragent.apps.views.explain import Entry, Fate, Trace, build_trace
from mragent.apps.views.trace_store import list_traces, persist_trace
from mragent.core.corpus import load_corpus, parse_corpus, reference_corpus_path
from mragent.core.genome import PRESETS
from mragent.core.retrieval.cue_search import CueHit
from mragent.core.retrieval.reconstruct import traverse
from mragent.core.store.base import GraphStore
from mragent.memory.reader import MemoryReader
from tests.fixtures import CHAIN, ingest
from tests.pasted import pasted

SEEDING_QUESTION = "In which hills does the Orlen River rise?"
SEEDING_GENOME = PRESETS["default"].replace(cueK=12, pruneThreshold=0.6, traversalDepth=2)


@pytest.fixture(scope="module")
def reference(falkor_store: GraphStore) -> Iterator[MemoryReader]:
    ns = f"views-{uuid.uuid4().hex[:8]}"
    ingest(falkor_store, load_corpus(reference_corpus_path()), ns)
    yield MemoryReader(falkor_store, ns)
    falkor_store.run("delete_namespace", {"ns": ns})


def _path_ids(value: Any) -> tuple[str, ...]:
    """Node ids of a path as each driver returns it (FalkorDB Path, Bolt list)."""
    if hasattr(value, "nodes"):
        return tuple(node.properties["id"] for node in value.nodes())
    return tuple(item["id"] for item in value if isinstance(item, dict))


def _drawn(store: GraphStore, trace: Trace) -> dict[tuple[str, ...], str]:
    rows = pasted(store, browser_cypher(trace))
    return {_path_ids(row["p"]): row["entry"] for row in rows}


def test_contents_seeding_brought_in_are_told_apart(reference: MemoryReader) -> None:
    trace = build_trace(reference, SEEDING_QUESTION, SEEDING_GENOME)
    by_entry = {entry: [c for c in trace.kept if c.entry is entry] for entry in Entry}
    assert by_entry[Entry.SEEDED] and by_entry[Entry.BRIDGED] and by_entry[Entry.PATH]
    trails = {r.candidate.id: r.candidate.trails for r in trace.reconstruction.ranked}
    for content in by_entry[Entry.SEEDED] + by_entry[Entry.BRIDGED]:
        assert trails[content.id] == ()  # no cue path reached it
    for content in by_entry[Entry.SEEDED]:
        # A seed enters the graph at the cue of its title, and that cue is an entry cue.
        cue = trace.seeded_by[content.id]
        assert trace.name(cue) == content.title
        assert cue in {c.id for c in trace.reconstruction.cues}
        assert trace.entry_text(content) == f"seeded at cue {content.title!r}"
    # The bridges drawn join the same (seed, content) pairs the reader's bridge walk found.
    seeds = sorted({b[0] for b in trace.bridges})
    hits = [
        CueHit(trace.seeded_by[s], trace.name(trace.seeded_by[s]), 0.0, 0.0, 1.0, 1.0, seed=s)
        for s in seeds
    ]
    walk = traverse(reference.store, reference.ns, reference.view, hits, SEEDING_GENOME)
    assert walk is not None
    bridged = {c.id for c in by_entry[Entry.BRIDGED]}
    pairs = {(seed, content.id) for seed, content in walk.bridges}
    assert {(b[0], b[-1]) for b in trace.bridges} == {p for p in pairs if p[1] in bridged}
    for seed, own, mentioned, content in trace.bridges:
        assert trace.nodes[own].label == trace.nodes[mentioned].label == "Tag"
        assert trace.weights[(own, seed)] >= 1.0 and trace.weights[(mentioned, content)] >= 1.0
        assert (own, mentioned) in trace.weights and (mentioned, seed) in trace.weights
    # Nothing in the pool is also listed as pruned (it used to be, from the shadow walk).
    assert len({c.id for c in trace.contents}) == len(trace.contents)


def test_browser_cypher_draws_seeds_and_bridges(reference: MemoryReader) -> None:
    trace = build_trace(reference, SEEDING_QUESTION, SEEDING_GENOME)
    drawn = _drawn(reference.store, trace)
    expected = {p.nodes: "cue path" for p in trace.used_paths}
    expected |= {b: "bridge from a seed passage" for b in trace.used_bridges}
    expected |= {(c.id,): "seeded, no cue path" for c in trace.used_seeded}
    assert drawn == expected
    assert trace.used_bridges and trace.used_seeded
    text = browser_cypher(trace)
    for content in trace.used_seeded:
        assert content.title in text.split("\nMATCH", 1)[0]  # named in the header


def test_browser_cypher_runs_on_every_engine(store: GraphStore, ns: str) -> None:
    ingest(store, parse_corpus(CHAIN), ns)
    genome = PRESETS["default"].replace(cueK=12, pruneThreshold=0.6)
    trace = build_trace(MemoryReader(store, ns), CHAIN["questions"][0]["question"], genome)
    assert trace.used_bridges, "CHAIN's Lisbon is reached only by the bridge walk here"
    # A seed passage drawn alone is a zero-length path: check that branch on every engine.
    lone = trace.kept[0]
    trace.contents[trace.contents.index(lone)] = dataclasses.replace(lone, entry=Entry.SEEDED)
    drawn = _drawn(store, trace)
    assert drawn[(lone.id,)] == "seeded, no cue path"
    assert {b for b, entry in drawn.items() if entry.startswith("bridge")} == set(
        trace.used_bridges
    )
    assert {p for p, entry in drawn.items() if entry == "cue path"} == {
        p.nodes for p in trace.used_paths
    }
    assert not {p.nodes for p in trace.paths if p.fate is Fate.PRUNED} & set(drawn)


def test_the_printed_setup_is_the_shipped_style(reference: MemoryReader) -> None:
    trace = build_trace(reference, SEEDING_QUESTION, SEEDING_GENOME)
    header = browser_cypher(trace).split("\nMATCH", 1)[0].splitlines()
    assert f"// {CONNECT_OFF}" in header
    [style] = [line[3:] for line in header if line.startswith("// :style ")]
    assert style == style_command()
    grass = grass_path().read_text(encoding="utf-8")
    assert " ".join(grass.split()) == style[len(":style ") :]
    # Every label explain draws has a caption from a property it carries.
    captions = dict(re.findall(r"node\.(\w+) \{[^}]*caption: '\{(\w+)\}'", grass))
    assert captions == {"Cue": "text", "Tag": "name", "Content": "title", "Trace": "question"}
    labels = {node.label for node in trace.nodes.values()}
    assert labels <= set(captions)
    # The Browser's grass parser splits declarations on ';' and key from value on ':'.
    for rule in re.findall(r"\{([^{}]*(?:\{\w+\}[^{}]*)*)\}", grass):
        for declaration in filter(str.strip, rule.split(";")):
            assert declaration.count(":") == 1, declaration


def test_persisted_visits_say_how_seeded_contents_entered(reference: MemoryReader) -> None:
    trace = build_trace(reference, SEEDING_QUESTION, SEEDING_GENOME)
    persist_trace(reference.store, trace)
    [stored] = [t for t in list_traces(reference.store, reference.ns) if t["question"]]
    entries = {v["id"]: v.get("entry") for v in stored["visits"] if v["kind"] == "kept"}
    for content in trace.kept:
        want = None if content.entry is Entry.PATH else content.entry.value
        assert entries[content.id] == want
