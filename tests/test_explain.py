"""``mragent explain``: the trace, Cypher for graph browsers, persisted traces, the CLI.

Every trace test runs on every engine (the ``store``/``ns`` fixtures) over the
CHAIN fixture corpus, whose graph is small enough to reason about by hand.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from mragent.apps.datasets import dataset_namespace
from mragent.apps.views.browser_view import browser_cypher, checked_id
from mragent.apps.views.explain import Fate, Trace, build_trace
from mragent.apps.views.explain_screen import render_trace
from mragent.apps.views.html_view import write_html
from mragent.apps.views.trace_store import TRACE_CAP, list_traces, persist_trace, trace_paths
from mragent.cli import app
from mragent.core.corpus import parse_corpus
from mragent.core.errors import MragentError
from mragent.core.genome import PRESETS, Genome, PromptStrategy
from mragent.core.store import open_store
from mragent.core.store.base import GraphStore
from mragent.memory.ingest import namespace_stats
from mragent.memory.reader import MemoryReader
from tests.fixtures import CHAIN, INJECTIONS, ingest
from tests.pasted import pasted

QUESTION = CHAIN["questions"][0]["question"]
DEFAULT = PRESETS["default"]


@pytest.fixture
def memory(store: GraphStore, ns: str) -> MemoryReader:
    ingest(store, parse_corpus(CHAIN), ns)
    return MemoryReader(store, ns)


def _named(trace: Trace, nodes: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f"{trace.nodes[n].label}:{trace.nodes[n].name}" for n in nodes)


def test_trace_shows_cues_paths_contents_and_answer(memory: MemoryReader) -> None:
    trace = build_trace(memory, QUESTION, DEFAULT)
    rec = trace.reconstruction
    assert "Acme" in [c.text for c in rec.cues]
    # Every node on every path has a name fetched from the database.
    used = {_named(trace, p.nodes) for p in trace.used_paths}
    assert ("Cue:Acme", "Tag:Acme", "Content:Acme") in used
    assert ("Cue:Acme", "Tag:Acme", "Tag:Jane Roe", "Content:Jane Roe") in used
    # Used paths are exactly the surviving trails of the contents handed to synthesis.
    kept = {r.candidate.id for r in rec.context.items}
    trails = {t.nodes for r in rec.ranked if r.candidate.id in kept for t in r.candidate.trails}
    assert {p.nodes for p in trace.used_paths} == trails
    # Edge weights reproduce the traversal's evidence, edge by edge.
    for path in trace.paths:
        assert trace.prefix_evidence(path)[-1] == pytest.approx(path.evidence, rel=1e-4)
    assert [c.rank for c in trace.contents] == list(range(1, len(rec.ranked) + 1))
    assert {c.evidence_rank for c in trace.contents} == set(range(1, len(rec.ranked) + 1))

    console = Console(record=True, width=200)
    render_trace(trace, console)
    screen = console.export_text()
    for expected in ("entry cues", "dense", "sparse", "fused", '"Acme" > Acme => Acme'):
        assert expected in screen
    assert "answer:" in screen and "cue_search" in screen and "traversal" in screen


def test_pruned_paths_are_reported_with_their_reason(memory: MemoryReader) -> None:
    floor = 0.4
    strict = build_trace(memory, QUESTION, DEFAULT.replace(pruneThreshold=floor))
    pruned = [p for p in strict.paths if p.fate is Fate.PRUNED]
    assert pruned, "raising pruneThreshold must show pruned paths"
    for path in pruned:
        assert path.evidence < floor
        assert re.fullmatch(rf"pruned: evidence {path.evidence:.3f} < threshold 0\.4", path.reason)
    surviving = {t.nodes for c in strict.reconstruction.candidates for t in c.trails}
    assert not surviving & {p.nodes for p in pruned}
    # Kept plus pruned at the floor are what the traversal returns without one.
    floorless = build_trace(memory, QUESTION, DEFAULT.replace(pruneThreshold=0.0))
    assert not [p for p in floorless.paths if p.fate is Fate.PRUNED]
    assert {p.nodes for p in strict.paths} == {p.nodes for p in floorless.paths}
    screen = Console(record=True, width=200)
    render_trace(strict, screen)
    assert "pruned: evidence" in screen.export_text()


def test_cut_by_max_content_and_dropped_by_prompt_strategy(memory: MemoryReader) -> None:
    genome = DEFAULT.replace(maxContent=2, promptStrategy=PromptStrategy.TERSE.value)
    trace = build_trace(memory, QUESTION, genome)
    fates = {c.title: (c.fate, c.reason) for c in trace.contents}
    cut = [t for t, (fate, _) in fates.items() if fate is Fate.CUT]
    assert len(cut) == len(trace.contents) - 2
    assert all("cut by maxContent" in fates[t][1] for t in cut)
    kept = [c for c in trace.contents if c.fate is Fate.KEPT]
    dropped = [c for c in trace.contents if c.fate is Fate.DROPPED]
    assert len(kept) + len(dropped) == 2
    assert all("promptStrategy terse" in c.reason for c in dropped)
    assert {c.id for c in kept} == {r.candidate.id for r in trace.reconstruction.context.items}


def _path_ids(value: Any) -> tuple[str, ...]:
    """Node ids of a path as each driver returns it (FalkorDB Path, Bolt list)."""
    if hasattr(value, "nodes"):
        return tuple(node.properties["id"] for node in value.nodes())
    return tuple(item["id"] for item in value if isinstance(item, dict))


def test_browser_cypher_draws_exactly_the_used_paths(
    store: GraphStore, memory: MemoryReader
) -> None:
    trace = build_trace(memory, QUESTION, DEFAULT.replace(pruneThreshold=0.4))
    text = browser_cypher(trace)
    assert text.count("MATCH p = ") == len(trace.used_paths)
    # The printed text is for a person to paste; run it as such, through the driver.
    rows = pasted(store, text)
    drawn = sorted(_path_ids(row["p"]) for row in rows)
    assert drawn == sorted(p.nodes for p in trace.used_paths)
    assert not {p.nodes for p in trace.paths if p.fate is Fate.PRUNED} & set(drawn)


@pytest.mark.parametrize("payload", [*INJECTIONS, "ABCDEF", ""])
def test_only_uuid_like_ids_are_printed_into_cypher(payload: str) -> None:
    with pytest.raises(MragentError, match="not a uuid"):
        checked_id(payload)
    assert checked_id("0f8e2c3a-1b2d-4c5e-8f90-a1b2c3d4e5f6")


def test_persisted_traces_are_capped_and_invisible_to_retrieval(
    store: GraphStore, memory: MemoryReader, ns: str
) -> None:
    trace = build_trace(memory, QUESTION, DEFAULT)
    before = memory.reconstruct(QUESTION, DEFAULT)
    memories_before = namespace_stats(store, ns)
    ids = [persist_trace(store, trace) for _ in range(TRACE_CAP + 2)]
    # Telemetry has its own cap: filling it evicts traces, never a memory.
    assert namespace_stats(store, ns) == memories_before
    stored = list_traces(store, ns, limit=TRACE_CAP + 10)
    assert len(stored) == TRACE_CAP == 100
    assert [row["id"] for row in stored] == ids[::-1][:TRACE_CAP]  # the two oldest went
    newest = stored[0]
    assert newest["question"] == QUESTION and json.loads(newest["genome"]) == DEFAULT.to_json_dict()
    kinds = {v["kind"] for v in newest["visits"]}
    assert {"cue", "tag", "kept"} <= kinds
    assert sorted(trace_paths(store, ns, ids[-1])) == sorted(p.nodes for p in trace.used_paths)
    # Retrieval never sees traces: same candidates, no Trace id in any traversal row.
    after = memory.reconstruct(QUESTION, DEFAULT)
    assert after.candidates == before.candidates
    reached = {n for c in after.candidates for t in c.trails for n in t.nodes}
    assert not reached & set(ids)
    store.run("delete_namespace", {"ns": ns})
    assert list_traces(store, ns) == []


def test_cap_refuses_nonsense(store: GraphStore, memory: MemoryReader) -> None:
    trace = build_trace(memory, QUESTION, DEFAULT)
    with pytest.raises(ValueError, match="keep"):
        persist_trace(store, trace, keep=0)


runner = CliRunner()


def test_cli_explain(corpus_file: Path, falkordb_url: str, tmp_path: Path) -> None:
    ns = "cli-explain"
    common = ["--corpus", str(corpus_file), "--ns", ns, "--db", falkordb_url]
    try:
        shown = runner.invoke(app, ["explain", QUESTION, *common, "--genome", "default"])
        assert shown.exit_code == 0, shown.output
        for expected in ("entry cues", "paths", "contents", "answer:", "time:"):
            assert expected in shown.stdout
        page = tmp_path / "trace.html"
        both = runner.invoke(
            app, ["explain", QUESTION, *common, "--cypher", "--persist", "--html", str(page)]
        )
        assert both.exit_code == 0, both.output
        assert both.stdout.startswith("// mragent explain: ")
        assert "// :config autoComplete: false" in both.stdout and "// :style node" in both.stdout
        assert "UNION" in both.stdout and "entry cues" not in both.stdout
        assert "entry cues" in both.stderr and "persisted trace" in both.stderr
        assert page.exists() and "vis.Network" in page.read_text()
        with open_store(falkordb_url) as store:
            assert len(list_traces(store, ns)) == 1
    finally:
        with open_store(falkordb_url) as store:
            store.run("delete_namespace", {"ns": ns})


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["   "], "question is empty"),
        ([QUESTION, "--ns", "bad ns!"], "namespace"),
        ([QUESTION, "--genome", "no-such-genome"], "genome"),
    ],
)
def test_cli_bad_input_exits_2(args: list[str], message: str, falkordb_url: str) -> None:
    result = runner.invoke(app, ["explain", *args, "--db", falkordb_url])
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_genome_replace_keeps_enum_values() -> None:
    # The shadow traversal copies the genome with the floor at 0 and nothing else.
    genome = Genome(pruneThreshold=0.3, traversalDepth=3)
    floorless = genome.replace(pruneThreshold=0.0)
    assert floorless.to_json_dict() == {**genome.to_json_dict(), "pruneThreshold": 0.0}


def test_html_page_escapes_memory_text(falkor_store: GraphStore, tmp_path: Path) -> None:
    payload = "</script><img src=x onerror=alert(1)>"
    data = {
        "format": "mragent-corpus/1",
        "contents": [
            {"id": "x", "title": f"Evil {payload}", "tags": [f"Tag {payload}"], "cues": [],
             "text": f"Evil {payload} was founded by Jane Roe."},
        ],
    }  # fmt: skip
    ns = "explain-escape"
    try:
        ingest(falkor_store, parse_corpus(data), ns)
        trace = build_trace(MemoryReader(falkor_store, ns), f"Who founded Evil {payload}?", DEFAULT)
    finally:
        falkor_store.run("delete_namespace", {"ns": ns})
    assert trace.used_paths and any(payload in n.name for n in trace.nodes.values())
    page = tmp_path / "evil.html"
    write_html(trace, page)
    text = page.read_text(encoding="utf-8")
    assert payload not in text and "<img src=x" not in text
    assert "Evil" in text


def test_html_view_draws_paths_to_contents_the_trace_does_not_list(
    falkor_store: GraphStore, tmp_path: Path
) -> None:
    # On large memories the floorless shadow walk reaches contents the traversal never
    # returned; the page must still draw (it used to fail on a "non existent node").
    ns = "explain-unlisted"
    try:
        ingest(falkor_store, parse_corpus(CHAIN), ns)
        trace = build_trace(MemoryReader(falkor_store, ns), QUESTION, DEFAULT)
    finally:
        falkor_store.run("delete_namespace", {"ns": ns})
    dropped = trace.paths[0].nodes[-1]
    partial = dataclasses.replace(trace, contents=[c for c in trace.contents if c.id != dropped])
    page = tmp_path / "partial.html"
    write_html(partial, page)
    assert trace.name(dropped) in page.read_text(encoding="utf-8")


def test_cli_explain_reads_a_dataset_as_bench_does(falkordb_url: str) -> None:
    data = Path(__file__).parent / "datasets_data"
    args = ["--dataset", "hotpotqa", "--path", str(data / "hotpotqa_mini.json")]
    args += ["--corpus", str(data / "hotpotqa_mini_corpus.json"), "--db", falkordb_url]
    question = "Which band did the drummer of Glass Orchard later join?"
    namespace = dataset_namespace(
        "hotpotqa", data / "hotpotqa_mini.json", data / "hotpotqa_mini_corpus.json"
    )
    try:
        shown = runner.invoke(app, ["explain", question, *args])
        assert shown.exit_code == 0, shown.output
        assert f"namespace {namespace!r}" in shown.stdout and "Glass Orchard" in shown.stdout
        again = runner.invoke(app, ["explain", question, *args])
        assert "ingested" not in again.output  # the namespace bench would read, reused
    finally:
        with open_store(falkordb_url) as store:
            store.run("delete_namespace", {"ns": namespace})
    missing = runner.invoke(
        app, ["explain", question, "--dataset", "musique", "--db", falkordb_url]
    )
    assert missing.exit_code == 2 and "needs --path" in missing.output


def test_a_future_as_of_reads_now_and_says_so(corpus_file: Path, falkordb_url: str) -> None:
    common = ["--corpus", str(corpus_file), "--ns", "cli-as-of", "--db", falkordb_url]
    try:
        future = runner.invoke(app, ["explain", QUESTION, *common, "--as-of", "2999-01-01"])
        now = runner.invoke(app, ["explain", QUESTION, *common])
        past = runner.invoke(app, ["explain", QUESTION, *common, "--as-of", "2000-01-01"])
    finally:
        with open_store(falkordb_url) as store:
            store.run("delete_namespace", {"ns": "cli-as-of"})
    assert future.exit_code == now.exit_code == 0, future.output
    assert "--as-of 2999-01-01 is later than now" in future.stderr

    def answer(result: Any) -> str:
        return next(line for line in result.stdout.splitlines() if line.startswith("answer:"))

    assert answer(future) == answer(now) != answer(past)  # the future reads now; 2000 read nothing
    assert "abstained" in answer(past)
    assert "later than now" not in past.stderr and "later than now" not in now.stderr
