"""The HTML view, opened in real headless Chromium.

vis-network draws on a canvas, so the page records what it drew in
``document.body.dataset`` after drawing; Chromium's ``--dump-dom`` (after a
virtual time budget, so the page's scripts run to completion) hands that back.
Skips where no Chromium is installed, unless ``MRAGENT_REQUIRE_BACKENDS``
names ``chromium``.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mragent.apps.explain import Fate, build_trace
from mragent.apps.html_view import build_network, write_html
from mragent.core.corpus import parse_corpus
from mragent.core.genome import PRESETS
from mragent.core.store.base import GraphStore
from mragent.memory.reader import Memory
from tests.conftest import required_backends
from tests.fixtures import CHAIN, ingest

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


def _dump_dom(browser: str, page: Path, profile: Path) -> str:
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
        "--window-size=1280,1000",
        "--virtual-time-budget=5000",
        "--dump-dom",
        page.as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _data(dom: str, name: str) -> str:
    match = re.search(rf'data-{name}="([^"]*)"', dom)
    assert match, f"the page did not record data-{name}: the graph was not drawn"
    return html.unescape(match.group(1))


def test_html_view_renders_in_headless_chromium(falkor_store: GraphStore, tmp_path: Path) -> None:
    browser = _chromium()
    ns = "html-browser"
    try:
        ingest(falkor_store, parse_corpus(CHAIN), ns)
        memory = Memory(falkor_store, ns)
        genome = PRESETS["default"].replace(pruneThreshold=0.4)
        trace = build_trace(memory, CHAIN["questions"][0]["question"], genome)
    finally:
        falkor_store.run("delete_namespace", {"ns": ns})
    assert any(p.fate is Fate.PRUNED for p in trace.paths)
    page = tmp_path / "trace.html"
    size = write_html(trace, page)
    text = page.read_text(encoding="utf-8")
    assert size == len(text.encode("utf-8")) and not list(tmp_path.glob(".*.tmp"))
    assert not EXTERNAL.search(text), EXTERNAL.search(text)
    assert not CSS_URL.search(text)

    dom = _dump_dom(browser, page, tmp_path / "profile")
    assert "<canvas" in dom
    drawn = json.loads(_data(dom, "rendered-nodes"))
    groups = {(node["group"], node["label"]) for node in drawn}
    assert {("cue", "Acme"), ("cue", "Jane Roe"), ("tag", "Acme"), ("tag", "Jane Roe")} <= groups
    # Contents are labelled "<final rank>. <title>"; the rank order is the pipeline's business.
    kept = {label.split(". ", 1)[1] for group, label in groups if group == "content-kept"}
    assert {"Acme", "Jane Roe"} <= kept
    network = build_network(trace)
    assert len(drawn) == len(network.nodes)
    assert int(_data(dom, "rendered-edges")) == len(network.edges)
    assert any(edge.get("dashes") for edge in network.edges)  # pruned paths are dashed
    assert int(_data(dom, "painted-pixels")) > 1000
