"""The HTML view, opened in real headless Chromium.

vis-network draws on a canvas, so the page records what it drew in
``document.body.dataset`` after drawing; Chromium's ``--dump-dom`` (after a
virtual time budget, so the page's scripts run to completion) hands that back,
and a screenshot at 1400x900 shows how it reads: the graph across the whole
width, labels painted.
Skips where no Chromium is installed, unless ``MRAGENT_REQUIRE_BACKENDS``
names ``chromium``.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import uuid
from itertools import pairwise
from pathlib import Path

import pytest
from PIL import Image

from mragent.apps.views.explain import Entry, Fate, Trace, build_trace
from mragent.apps.views.html_view import MIN_LABEL_PX, build_network, write_html
from mragent.core.corpus import load_corpus, parse_corpus, reference_corpus_path
from mragent.core.genome import PRESETS, Genome
from mragent.core.store.base import GraphStore
from mragent.memory.reader import MemoryReader
from tests.conftest import required_backends
from tests.fixtures import CHAIN, ingest
from tests.test_views import SEEDING_GENOME, SEEDING_QUESTION

WIDTH, HEIGHT = 1400, 900
# CHAIN with a second passage titled Acme: repeated titles must read apart.
TWIN_TITLES = {
    **CHAIN,
    "contents": [
        *CHAIN["contents"],
        {"id": "acme-later", "title": "Acme", "tags": ["Acme"], "cues": [],
         "text": "Acme later moved its works to Porto."},
    ],
}  # fmt: skip

# An external resource: a script, stylesheet, image or frame fetched by URL.
EXTERNAL = re.compile(
    r"<(script|link|img|iframe)\b[^>]*\b(src|href)\s*=\s*[\"']?(https?:)?//", re.IGNORECASE
)
CSS_URL = re.compile(r"url\(\s*[\"']?(https?:)?//", re.IGNORECASE)


def _chromium() -> str:
    found = shutil.which("chromium") or (
        "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
    )
    if found:
        return found
    reason = "no chromium on PATH or at /usr/bin/chromium (apt-get install chromium)"
    if "chromium" in required_backends():
        pytest.fail(f"chromium is required (MRAGENT_REQUIRE_BACKENDS) but {reason}")
    pytest.skip(reason)


def _chromium_run(browser: str, page: Path, profile: Path, *mode: str) -> str:
    """Open ``page`` at 1400x900 (a laptop's window) and run ``mode`` (dump or screenshot)."""
    command = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        f"--window-size={WIDTH},{HEIGHT}",
        "--hide-scrollbars",
        "--virtual-time-budget=5000",
        *mode,
        page.as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _data(dom: str, name: str) -> str:
    match = re.search(rf'data-{name}="([^"]*)"', dom)
    assert match, f"the page did not record data-{name}: the graph was not drawn"
    return html.unescape(match.group(1))


def _trace(store: GraphStore, corpus: dict, question: str, genome: Genome) -> Trace:
    ns = f"html-{uuid.uuid4().hex[:8]}"
    try:
        ingest(store, parse_corpus(corpus), ns)
        return build_trace(MemoryReader(store, ns), question, genome)
    finally:
        store.run("delete_namespace", {"ns": ns})


def test_html_view_is_legible_at_first_paint(falkor_store: GraphStore, tmp_path: Path) -> None:
    browser = _chromium()
    genome = PRESETS["default"].replace(pruneThreshold=0.4)
    trace = _trace(falkor_store, TWIN_TITLES, CHAIN["questions"][0]["question"], genome)
    assert any(p.fate is Fate.PRUNED for p in trace.paths)
    page = tmp_path / "trace.html"
    size = write_html(trace, page)
    text = page.read_text(encoding="utf-8")
    assert size == len(text.encode("utf-8")) and not list(tmp_path.glob(".*.tmp"))
    assert not EXTERNAL.search(text), EXTERNAL.search(text)
    assert not CSS_URL.search(text)

    dom = _chromium_run(browser, page, tmp_path / "profile", "--dump-dom")
    assert "<canvas" in dom
    drawn = json.loads(_data(dom, "rendered-nodes"))
    groups = {(node["group"], node["label"]) for node in drawn}
    assert {("cue", "Acme"), ("cue", "Jane Roe"), ("tag", "Acme"), ("tag", "Jane Roe")} <= groups
    # First paint: what reached the context, each content labelled "<final rank>. <title>".
    assert {node["layer"] for node in drawn} == {"used"}
    kept = [label.split(". ", 1)[1] for group, label in groups if group == "content-kept"]
    assert {"Jane Roe"} <= set(kept) and sum(k.startswith("Acme\n") for k in kept) == 2
    assert len(set(kept)) == len(kept)  # the two passages titled Acme read apart
    network = build_network(trace)
    used = [n for n in network.nodes if n["layer"] == "used"]
    assert len(drawn) == len(used)
    assert int(_data(dom, "rendered-edges")) == sum(e["layer"] == "used" for e in network.edges)
    assert any(edge.get("dashes") for edge in network.edges)  # pruned paths are dashed
    assert int(_data(dom, "painted-pixels")) > 1000
    assert float(_data(dom, "min-label-px")) >= MIN_LABEL_PX
    left, top, width, height = json.loads(_data(dom, "graph-rect"))
    assert width >= 0.95 * WIDTH - 40 and top + height <= HEIGHT

    shot = tmp_path / "trace.png"
    _chromium_run(browser, page, tmp_path / "profile-shot", f"--screenshot={shot}")
    image = Image.open(shot).convert("L")
    assert image.size == (WIDTH, HEIGHT)
    graph = image.crop((left + 2, top + 2, left + width - 2, top + height - 2))
    ink = graph.point(lambda v: 255 if v < 245 else 0).getbbox()  # anything not background
    assert ink is not None
    assert (ink[2] - ink[0]) >= 0.85 * graph.width, f"the graph spans only {ink} of {graph.size}"
    # Labels were painted: dark text pixels, not just pale boxes and edges.
    text_pixels = sum(graph.histogram()[:90])
    assert text_pixels > 3000, text_pixels


def test_html_view_marks_contents_seeding_brought_in(
    falkor_store: GraphStore, tmp_path: Path
) -> None:
    browser = _chromium()
    ns = f"html-{uuid.uuid4().hex[:8]}"
    try:
        ingest(falkor_store, load_corpus(reference_corpus_path()), ns)
        trace = build_trace(MemoryReader(falkor_store, ns), SEEDING_QUESTION, SEEDING_GENOME)
    finally:
        falkor_store.run("delete_namespace", {"ns": ns})
    page = tmp_path / "seeded.html"
    write_html(trace, page)
    dom = _chromium_run(browser, page, tmp_path / "profile", "--dump-dom")
    drawn = json.loads(_data(dom, "rendered-nodes"))
    labels = {node["label"] for node in drawn}
    for content in trace.kept:
        marked = [label for label in labels if label.startswith(f"{content.rank}. {content.title}")]
        assert len(marked) == 1
        assert (f"[{trace.entry_text(content)}]" in marked[0]) is (content.entry is not Entry.PATH)
    network = build_network(trace)
    hidden = [n for n in network.nodes if n["layer"] == "other"]
    assert hidden and len(drawn) == len(network.nodes) - len(hidden)  # left out at first
    seeded_edges = [e for e in network.edges if str(e.get("label", "")).startswith("seed ")]
    for content in trace.used_seeded:
        assert (trace.seeded_by[content.id], content.id) in {
            (e["from"], e["to"]) for e in seeded_edges
        }


VELTRANE = "What is the birthplace of the woman who founded Veltrane Works?"


def _crosses(a: list[float], b: list[float], box: list[float], margin: float = 0.5) -> bool:
    """Whether the axis-parallel segment a-b passes through the inside of ``box``
    ([left, top, right, bottom]), shrunk by ``margin`` (touching its outline is not)."""
    left, top, right, bottom = box
    xs, ys = sorted((a[0], b[0])), sorted((a[1], b[1]))
    return (
        xs[0] < right - margin
        and xs[1] > left + margin
        and ys[0] < bottom - margin
        and ys[1] > top + margin
    )


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize(
    ("question", "genome"),
    [(VELTRANE, PRESETS["default"]), (SEEDING_QUESTION, SEEDING_GENOME)],
    ids=["veltrane", "seeding"],
)
def test_html_view_routes_edges_around_nodes_and_keeps_labels_apart(
    falkor_store: GraphStore, tmp_path: Path, question: str, genome: Genome
) -> None:
    browser = _chromium()
    ns = f"html-{uuid.uuid4().hex[:8]}"
    try:
        ingest(falkor_store, load_corpus(reference_corpus_path()), ns)
        trace = build_trace(MemoryReader(falkor_store, ns), question, genome)
    finally:
        falkor_store.run("delete_namespace", {"ns": ns})
    page = tmp_path / "routed.html"
    write_html(trace, page)
    dom = _chromium_run(browser, page, tmp_path / "profile", "--dump-dom")
    routes = json.loads(_data(dom, "rendered-routes"))
    boxes = json.loads(_data(dom, "node-boxes"))
    used = [e for e in build_network(trace).edges if e["layer"] == "used"]
    assert len(routes) == len(used) > 10
    for route in routes:
        points = route["points"]
        for a, b in pairwise(points):
            assert a[0] == b[0] or a[1] == b[1], f"a diagonal segment {a}-{b}"
            for node, box in boxes.items():
                if node not in (route["from"], route["to"]):
                    assert not _crosses(a, b, box), (
                        f"{trace.name(route['from'])} -> {trace.name(route['to'])} runs "
                        f"through {trace.name(node)}"
                    )
    labels = [route["label"] for route in routes if route["label"]]
    assert len(labels) == sum(1 for e in used if e.get("label"))
    for i, label in enumerate(labels):
        assert not any(_overlap(label, other) for other in labels[i + 1 :]), label
        assert not any(_overlap(label, box) for box in boxes.values()), label
    shot = tmp_path / f"routed-{uuid.uuid4().hex[:6]}.png"
    _chromium_run(browser, page, tmp_path / "profile-shot", f"--screenshot={shot}")
    assert Image.open(shot).size == (WIDTH, HEIGHT)
