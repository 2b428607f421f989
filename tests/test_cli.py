"""The command line: CliRunner for behaviour, one real subprocess for the entry point."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mragent
from mragent.cli import app
from mragent.core.genome import GENES, PRESETS, Genome
from mragent.core.store import open_store
from mragent.memory.ingest import namespace_stats

runner = CliRunner()
AS_TESTER = ("--principal", "human:tester")


def test_help_lists_commands() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("ingest", "bench", "evolve", "explain", "db", "genome"):
        assert command in result.output


def test_version_prints_the_package_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"mragent {mragent.__version__}"


def test_ingest_then_bench(corpus_file: Path, falkordb_url: str, tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["ingest", str(corpus_file), "--ns", "cli-a", "--db", falkordb_url, *AS_TESTER]
    )
    assert result.exit_code == 0, result.output
    assert "ingested 4 contents" in result.output and "added 4 cues" in result.output
    again = runner.invoke(
        app, ["ingest", str(corpus_file), "--ns", "cli-a", "--db", falkordb_url, *AS_TESTER]
    )
    assert "added 0 cues, 0 tags, 0 contents, 0 links, 0 refs" in again.output
    out = tmp_path / "bench.json"
    bench = runner.invoke(
        app,
        [
            "bench",
            "--corpus",
            str(corpus_file),
            "--ns",
            "cli-a",
            "--db",
            falkordb_url,
            "--genome",
            "deep",
            "--out",
            str(out),
        ],
    )
    assert bench.exit_code == 0, bench.output
    report = json.loads(out.read_text())
    names = [s["name"] for s in report["systems"]]
    assert names == [
        "mragent",
        "mragent default",
        "flat bm25 (okapi)",
        "flat bm25 (lucene, bm25s)",
        "flat dense (hashing)",
        "flat hybrid (hashing)",
    ]
    assert report["embedder"] == "hashing:word+char3-blake2:256:norm"
    assert report["genome"]["traversalDepth"] == 3
    assert report["systems"][0]["summary"]["questions"] == 1
    # Flat baselines have no answer step: EM/F1 are absent, not zero.
    flat = report["systems"][2]["summary"]
    assert flat["em"] is None and flat["f1"] is None
    assert isinstance(report["systems"][0]["summary"]["em"], float)
    assert "in-context acc" in bench.stdout  # accuracy is answer-in-context, not EM
    with open_store(falkordb_url) as store:
        store.run("delete_namespace", {"ns": "cli-a"})


@pytest.mark.parametrize(
    "content, needle",
    [
        ("{not json", "malformed JSON"),
        (
            json.dumps({"contents": [{"id": "a", "text": "ok"}, {"id": "b", "text": ""}]}),
            "record contents[1]: field 'text' is empty",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line_and_writes_nothing(
    tmp_path: Path, falkordb_url: str, content: str, needle: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    result = runner.invoke(
        app, ["ingest", str(path), "--ns", "cli-bad", "--db", falkordb_url, *AS_TESTER]
    )
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and str(path) in lines[0] and needle in lines[0]
    with open_store(falkordb_url) as store:
        assert namespace_stats(store, "cli-bad")["contents"] == 0


def test_bad_namespace_and_genome_exit_2(corpus_file: Path, falkordb_url: str) -> None:
    bad_ns = runner.invoke(
        app, ["ingest", str(corpus_file), "--ns", "a'b", "--db", falkordb_url, *AS_TESTER]
    )
    assert bad_ns.exit_code == 2 and "namespace" in bad_ns.output
    bad_genome = runner.invoke(
        app, ["bench", "--corpus", str(corpus_file), "--genome", "nope", "--db", falkordb_url]
    )
    assert bad_genome.exit_code == 2 and "neither a preset" in bad_genome.output


def test_unreachable_database_exits_1(corpus_file: Path) -> None:
    result = runner.invoke(
        app, ["ingest", str(corpus_file), "--db", "falkordb://127.0.0.1:1", *AS_TESTER]
    )
    assert result.exit_code == 1 and "not reachable" in result.output


def test_genome_list_and_show() -> None:
    listed = runner.invoke(app, ["genome", "list"], env={"COLUMNS": "80"})
    assert listed.exit_code == 0 and "traversalDepth" in listed.output
    # 80 columns, nothing cut: every range, description and preset value whole.
    assert "…" not in listed.output
    assert max(len(line) for line in listed.output.splitlines()) <= 80
    for spec in GENES:
        assert spec.name in listed.output and spec.doc.split()[-1] in listed.output
    # The presets come as tables of a few presets each, side by side in rows.
    header, rows = ["gene"], {}
    for table in listed.output.split("presets (")[1:]:
        lines = table.split("Without --genome")[0].splitlines()
        header += next(line.split() for line in lines if line.split()[:1] == ["gene"])[1:]
        for line in lines:
            if line.split()[:1] and line.split()[0] in Genome.model_fields:
                rows.setdefault(line.split()[0], []).extend(line.split()[1:])
    assert header == ["gene", *PRESETS]
    for i, preset in enumerate(PRESETS.values()):
        for gene, value in preset.to_json_dict().items():
            assert rows[gene][i] == str(value), (gene, i)
    assert "real-model" in listed.output.split("Without --genome")[1]
    shown = runner.invoke(app, ["genome", "show", "fast"])
    assert json.loads(shown.output)["traversalDepth"] == 1


def test_db_start_status_stop(tmp_path: Path) -> None:
    env = {"MRAGENT_HOME": str(tmp_path)}
    assert runner.invoke(app, ["db", "status"], env=env).exit_code == 3
    started = runner.invoke(app, ["db", "start"], env=env)
    assert started.exit_code == 0 and "started" in started.output
    assert "already running" in runner.invoke(app, ["db", "start"], env=env).output
    assert runner.invoke(app, ["db", "status"], env=env).exit_code == 0
    assert "stopped" in runner.invoke(app, ["db", "stop"], env=env).output
    assert runner.invoke(app, ["db", "status"], env=env).exit_code == 3


def test_installed_entry_point_runs(tmp_path: Path) -> None:
    exe = shutil.which("mragent")
    if exe is None:
        pytest.skip("the mragent entry point is not installed (pip install -e .)")
    result = subprocess.run(
        [exe, "--help"], capture_output=True, text=True, cwd=tmp_path, timeout=60, check=False
    )
    assert result.returncode == 0 and "ingest" in result.stdout
