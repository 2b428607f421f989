"""Embedders compared: flat retrieval quality, embedding speed, load time, install cost.

For each embedder spec (default: hashing, minilm, e5-small) on MuSiQue-100 and
HotpotQA-100 (the pooled corpora, read by path):

* quality: support recall@2/5/10 of mragent's own flat dense and flat hybrid
  (BM25 + dense, RRF) baselines (:class:`mragent.apps.baselines.FlatRetriever`,
  as ``mragent bench`` runs them), beside flat BM25;
* speed: passages embedded per wall second and per CPU second, cue texts per
  second (the short texts ingest embeds most of), and the p50 latency of one
  question. Embedders are interleaved chunk by chunk (the order rotating), so
  they share the machine's background load; ratios between them are the
  figures to trust on a busy machine;
* load: wall time of a fresh process that builds the embedder and embeds one
  question (median of three);
* install (``--install``): wall time and site-packages growth of ``pip install``
  of each extra's packages into a fresh virtual environment.

Usage::

    python benchmarks/embedders.py --data ../shared/datasets --install --json out.json

Prints a Markdown table; ``--json`` also writes every figure.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mragent.apps.baselines import FlatRetriever
from mragent.apps.datasets import load_dataset
from mragent.apps.evaluate import summarise
from mragent.core.corpus import Corpus
from mragent.core.embedding import Embedder, embed_all, embedder_from_spec, passage_text
from mragent.core.extract import RuleExtractor

REPO = Path(__file__).resolve().parent.parent
DATASETS = {
    "musique": ("musique_100.json", "musique_100_corpus.json"),
    "hotpotqa": ("hotpotqa_100.json", "hotpotqa_100_corpus.json"),
}
CHUNK = 32  # passages per interleaved turn (and per model call)
CUE_SAMPLE = 2000
EXTRAS = {"minilm": "minilm", "e5-small": "models"}  # spec -> the extra that installs it
K = 5  # the context size the flat baselines hand over (bench's default maxContent)


def _default_data() -> Path:
    for base in (REPO.parent, REPO.parent.parent):
        if (base / "shared" / "datasets").is_dir():
            return base / "shared" / "datasets"
    return REPO.parent / "shared" / "datasets"


def _rows(corpus: Corpus) -> list[dict[str, str]]:
    return [{"key": c.key, "title": c.title or "", "text": c.text} for c in corpus.contents]


def interleaved_embedding(
    embedders: dict[str, Embedder], texts: Sequence[str]
) -> tuple[dict[str, np.ndarray], dict[str, dict[str, float]]]:
    """Embed ``texts`` with every embedder, chunk by chunk in rotating order.

    Returns:
        The vectors per embedder, and per embedder its wall and CPU seconds.
    """
    names = list(embedders)
    vectors = {
        n: np.zeros((len(texts), embedders[n].identity.dimension), np.float32) for n in names
    }
    spent = {n: {"wall_s": 0.0, "cpu_s": 0.0} for n in names}
    for turn, start in enumerate(range(0, len(texts), CHUNK)):
        chunk = texts[start : start + CHUNK]
        for name in names[turn % len(names) :] + names[: turn % len(names)]:
            embedder = embedders[name]
            wall, cpu = time.perf_counter(), time.process_time()
            out = embed_all(embedder.embed_passages, chunk, embedder.identity.dimension)
            spent[name]["wall_s"] += time.perf_counter() - wall
            spent[name]["cpu_s"] += time.process_time() - cpu
            vectors[name][start : start + len(chunk)] = out
    return vectors, spent


def query_latency(embedders: dict[str, Embedder], questions: Sequence[str]) -> dict[str, float]:
    """p50 milliseconds of embedding one question, interleaved across embedders."""
    times: dict[str, list[float]] = {n: [] for n in embedders}
    for question in questions:
        for name, embedder in embedders.items():
            start = time.perf_counter()
            embedder.embed_queries([question])
            times[name].append((time.perf_counter() - start) * 1000)
    return {n: statistics.median(t) for n, t in times.items()}


def load_seconds(spec: str, repeats: int = 3) -> float:
    """Median wall time of a fresh process that builds ``spec`` and embeds one question."""
    code = (
        "from mragent.core.embedding import embedder_from_spec;"
        f"embedder_from_spec({spec!r}).embed_queries(['Who founded it?'])"
    )
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def _site_packages_bytes(venv: Path) -> int:
    return sum(f.stat().st_size for f in venv.glob("lib/python*/site-packages/**/*") if f.is_file())


def install_cost(extra: str) -> dict[str, float]:
    """Wall seconds and MB added by ``pip install`` of an extra's packages in a fresh venv."""
    packages = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ][extra]
    with tempfile.TemporaryDirectory(prefix=f"emb-{extra}-") as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        before = _site_packages_bytes(venv)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-cache-dir"]
        start = time.perf_counter()
        subprocess.run([*pip, *packages], check=True)
        seconds = time.perf_counter() - start
        added = (_site_packages_bytes(venv) - before) / 1e6
    return {"install_s": round(seconds, 1), "site_packages_mb": round(added, 1)}


def quality(
    corpus: Corpus, embedders: dict[str, Embedder], vectors: dict[str, np.ndarray]
) -> dict[str, dict[str, float]]:
    """Support recall@2/5/10 (%) of flat BM25, and flat dense and hybrid per embedder."""
    rows = _rows(corpus)
    out = {}
    for name, embedder in embedders.items():
        for method in ("dense", "hybrid"):
            flat = FlatRetriever(rows, method, embedder, vectors[name])
            recall = summarise(flat.run(corpus.questions, K)).recall
            out[f"{method} {name}"] = {str(k): round(100 * v, 1) for k, v in recall.items()}
    bm25 = summarise(
        FlatRetriever(rows, "bm25", next(iter(embedders.values()))).run(corpus.questions, K)
    ).recall
    out["bm25"] = {str(k): round(100 * v, 1) for k, v in bm25.items()}
    return out


def cue_texts(corpus: Corpus) -> list[str]:
    """A sample of the cue texts ingest embeds: tags and keywords of the contents."""
    found: set[str] = set()
    for ex in RuleExtractor().extract(corpus.contents):
        found.update(ex.tags)
        found.update(ex.keywords)
    return sorted(found)[:CUE_SAMPLE]


def measure(specs: list[str], data: Path, install: bool) -> dict[str, Any]:
    embedders = {spec: embedder_from_spec(spec) for spec in specs}
    report: dict[str, Any] = {
        "identity": {n: e.identity.as_text() for n, e in embedders.items()},
        "datasets": {},
    }
    speed: dict[str, dict[str, float]] = {
        n: {"passages": 0, "wall_s": 0.0, "cpu_s": 0.0} for n in specs
    }
    for dataset, (questions, pool) in DATASETS.items():
        corpus = load_dataset(dataset, data / questions, data / pool)
        texts = [passage_text(c.title, c.text) for c in corpus.contents]
        vectors, spent = interleaved_embedding(embedders, texts)
        for name in specs:
            speed[name]["passages"] += len(texts)
            speed[name]["wall_s"] += spent[name]["wall_s"]
            speed[name]["cpu_s"] += spent[name]["cpu_s"]
        report["datasets"][dataset] = {
            "passages": len(texts),
            "questions": len(corpus.questions),
            "recall": quality(corpus, embedders, vectors),
        }
        if dataset == "musique":
            report["query_p50_ms"] = query_latency(
                embedders, [q.question for q in corpus.questions]
            )
            cues = cue_texts(corpus)
            _, cue_spent = interleaved_embedding(embedders, cues)
            report["cues_per_s"] = {
                n: round(len(cues) / s["wall_s"], 1) for n, s in cue_spent.items()
            }
    report["passages_per_s"] = {n: round(s["passages"] / s["wall_s"], 1) for n, s in speed.items()}
    report["passages_per_cpu_s"] = {
        n: round(s["passages"] / s["cpu_s"], 1) for n, s in speed.items()
    }
    report["load_s"] = {n: round(load_seconds(n), 2) for n in specs}
    if install:
        report["install"] = {n: install_cost(EXTRAS[n]) for n in specs if n in EXTRAS}
    return report


def markdown(report: dict[str, Any]) -> str:
    specs = list(report["identity"])
    lines = ["| | " + " | ".join(specs) + " |", "|---" * (len(specs) + 1) + "|"]

    def row(label: str, cells: list[str]) -> None:
        lines.append(f"| {label} | " + " | ".join(cells) + " |")

    for dataset, found in report["datasets"].items():
        for method in ("dense", "hybrid"):
            cells = [
                "/".join(str(found["recall"][f"{method} {n}"][k]) for k in ("2", "5", "10"))
                for n in specs
            ]
            row(f"{dataset} flat {method} R@2/5/10", cells)
        bm25 = "/".join(str(found["recall"]["bm25"][k]) for k in ("2", "5", "10"))
        row(f"{dataset} flat bm25 R@2/5/10", [bm25] * len(specs))
    row("passages/s (wall)", [str(report["passages_per_s"][n]) for n in specs])
    row("passages per CPU-s", [str(report["passages_per_cpu_s"][n]) for n in specs])
    row("cue texts/s", [str(report["cues_per_s"][n]) for n in specs])
    row("one question p50 ms", [f"{report['query_p50_ms'][n]:.2f}" for n in specs])
    row("load s (fresh process)", [str(report["load_s"][n]) for n in specs])
    if "install" in report:
        cost = report["install"]
        row(
            "pip install s", [str(cost[n]["install_s"]) if n in cost else "0 (core)" for n in specs]
        )
        row(
            "site-packages MB",
            [str(cost[n]["site_packages_mb"]) if n in cost else "0 (core)" for n in specs],
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="hashing,minilm,e5-small", help="comma-separated specs")
    parser.add_argument("--data", type=Path, default=_default_data(), help="the datasets folder")
    parser.add_argument(
        "--install", action="store_true", help="also time pip install of the extras"
    )
    parser.add_argument("--json", type=Path, help="write every figure here")
    args = parser.parse_args(argv)
    report = measure(
        [s.strip() for s in args.models.split(",") if s.strip()], args.data, args.install
    )
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(markdown(report))


if __name__ == "__main__":
    main()
