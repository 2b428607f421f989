"""The traversal's two-step match returns exactly the rows of the design's one pattern.

``traverse.cypher`` matches ``(c:Cue)-[:LINKED_TO*1..N]->(t:Tag)-[:REFERENCES]->
(m:Content)`` in two steps, so that the fanout, view and no-revisit conditions act while
the paths are built instead of after the whole pattern. Here the same round trip runs
again with the reconstruction written as that one pattern, every condition a filter
after it (the form the design states), on real questions of the reference corpus, of a
MuSiQue subset and of a generated graph, at every depth, on every reachable engine: the
two must return the same rows in the same order, to the last bit of every float.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mragent.apps.datasets import load_dataset
from mragent.apps.synthetic import generate
from mragent.core.corpus import Corpus, load_corpus, reference_corpus_path
from mragent.core.engines import ENGINES
from mragent.core.genome import Genome
from mragent.core.queries import get_query
from mragent.core.store.base import GraphStore
from mragent.memory.reader import MemoryReader
from tests.fixtures import ingest

pytestmark = pytest.mark.backend

REPO = Path(__file__).resolve().parent.parent
# The datasets are read where they lie: $MRAGENT_DATASETS, else beside the checkout.
DATASETS = (
    [Path(os.environ["MRAGENT_DATASETS"])]
    if "MRAGENT_DATASETS" in os.environ
    else [
        REPO.parent / "shared" / "datasets",
        REPO.parent.parent / "shared" / "datasets",
    ]
)
MUSIQUE = "musique_100.json"
MUSIQUE_RECORDS = 12  # questions (with their 20 paragraphs each) of the subset
QUESTIONS = 12  # asked per corpus
DEPTHS = (1, 2, 3, 4)
GENOMES = (Genome(), Genome(tagFanout=2, pruneThreshold=0.0, cueK=8))

# The two-step reconstruction in traverse.cypher, from the variable-length step to the
# line where both forms continue alike (a path as its nodes `trail` and edges `edges`).
_SPLIT = re.compile(
    r"  MATCH p = \(c:Cue\)-\[e:LINKED_TO\*1\.\.(?P<depth>\d)\]->\(t:Tag\)\n"
    r".*?"
    r"  WHERE r\.(?P<rank>\w+) <= \$fanout AND (?P<visible>.*?)\n"
    r".*?"
    r"  WITH cand, m, walk \+ \[m\] AS trail, links \+ \[r\] AS edges\n",
    re.S,
)
# The design's one pattern, every condition checked once the whole path exists.
_LITERAL = """  MATCH p = (c:Cue)-[:LINKED_TO*1..{depth}]->(t:Tag)-[r:REFERENCES]->(m:Content)
  WHERE all(i IN range(0, length(p) - 2) WHERE relationships(p)[i].rank <= $fanout)
    AND r.{rank} <= $fanout
    AND all(n IN nodes(p) WHERE n.ns = $ns AND n.scope IN $scopes)
    AND all(n IN nodes(p) WHERE single(x IN nodes(p) WHERE x = n))
    AND {visible}
  WITH cand, m, nodes(p) AS trail, relationships(p) AS edges
"""


def literal_form(text: str) -> str:
    """``traverse`` as rendered, its reconstruction written as the one literal pattern."""
    found = list(_SPLIT.finditer(text))
    assert len(found) == 1, "traverse.cypher no longer has the two-step reconstruction"
    match = found[0]
    literal = _LITERAL.format(
        depth=match["depth"], rank=match["rank"], visible=match["visible"].strip()
    )
    return text[: match.start()] + literal + text[match.end() :]


@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_has_the_two_step_form_and_its_literal_twin(engine: str) -> None:
    for depth in DEPTHS:
        text = get_query("traverse", engine).render(depth=depth, rank="rank_pending")
        literal = literal_form(text)
        assert f"(c:Cue)-[:LINKED_TO*1..{depth}]->(t:Tag)-[r:REFERENCES]->(m:Content)" in literal
        assert "r.rank_pending <= $fanout" in literal and "m.forgotten_at IS NULL" in literal
        assert "walk + [m]" not in literal and literal.count("MATCH p =") == 1


class _Recorder:
    """Runs ``traverse`` on the real store and keeps the statement it sent."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self.sent: list[tuple[str, dict[str, Any], list[dict[str, Any]]]] = []
        self._execute = store._execute

    def __enter__(self) -> _Recorder:
        def execute(name: str, text: str, params: dict[str, Any]) -> list[dict[str, Any]]:
            rows = self._execute(name, text, params)
            if name == "traverse":
                self.sent.append((text, params, rows))
            return rows

        self.store._execute = execute  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        del self.store._execute


def _musique_subset(tmp_path: Path) -> Corpus:
    path = next((d / MUSIQUE for d in DATASETS if (d / MUSIQUE).exists()), None)
    if path is None:
        pytest.skip(f"{MUSIQUE} is in none of {[str(d) for d in DATASETS]}")
    records = json.loads(path.read_text(encoding="utf-8"))[:MUSIQUE_RECORDS]
    subset = tmp_path / "musique_subset.json"
    subset.write_text(json.dumps(records), encoding="utf-8")
    return load_dataset("musique", subset)


def _corpora(tmp_path: Path) -> Iterator[tuple[str, Corpus]]:
    yield "reference", load_corpus(reference_corpus_path())
    yield "musique", _musique_subset(tmp_path)
    yield "generated", generate(600, seed=3)


@pytest.mark.slow
def test_two_step_and_literal_traversals_return_the_same_rows(
    store: GraphStore, tmp_path: Path
) -> None:
    checked = deep_rows = 0
    for name, corpus in _corpora(tmp_path):
        ns = f"t-{uuid.uuid4().hex[:12]}"
        try:
            ingest(store, corpus, ns)
            memory = MemoryReader(store, ns)
            for question in corpus.questions[:QUESTIONS]:
                for genome in GENOMES:
                    for depth in DEPTHS:
                        deep = genome.replace(traversalDepth=depth)
                        with _Recorder(store) as recorder:
                            memory.reconstruct(question.question, deep)
                        for text, params, rows in recorder.sent:
                            literal = store._execute("traverse", literal_form(text), params)
                            assert literal == rows, (name, question.question, depth)
                            checked += 1
                            # found rows: [..., best hops, trails]; count multi-hop ones.
                            deep_rows += sum(1 for f in rows[0]["found"] if f[7] > 1)
        finally:
            store.run("delete_namespace", {"ns": ns})
    assert checked >= 3 * QUESTIONS * len(GENOMES) * len(DEPTHS)
    assert deep_rows > 0  # the deeper walks were exercised, not only one-hop ones
