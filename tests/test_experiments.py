"""The experiment files in ``evolution/``: each still loads, its genes still exist, and its
published results match it; a bad file is refused with the file and key named; and
``mragent evolve --experiment`` runs one into its results folder."""

# ruff: noqa: F811  (the fixtures imported from test_evolution are parameters here)
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mragent.core.errors import ConfigError
from mragent.core.genome import (
    GENE_NAMES,
    GENE_SETS,
    PRESETS,
    Genome,
    default_genome,
    load_genome,
    narrowed_genes,
)
from mragent.core.store.base import GraphStore
from mragent.evolution.encoding import clamp_genome
from mragent.evolution.experiment import Experiment, load_experiment
from tests.test_evolution import corpus_path, falkor  # noqa: F401  (fixtures)

EVOLUTION = Path(__file__).resolve().parent.parent / "evolution"
EXPERIMENTS = sorted(EVOLUTION.glob("*.toml"))
SHIPPED = {
    "reference",
    "musique-hashing",
    "musique-e5",
    "musique-e5-from-default",
    "musique-e5-abstain",
    "hotpotqa-e5",
}


def test_the_shipped_experiments_are_there() -> None:
    assert {p.stem for p in EXPERIMENTS} >= SHIPPED


@pytest.mark.parametrize("path", EXPERIMENTS, ids=[p.stem for p in EXPERIMENTS])
def test_an_experiment_loads_and_names_genes_that_exist(path: Path) -> None:
    experiment = load_experiment(path)
    searched = {spec.name for spec in GENE_SETS[experiment.gene_set]}
    assert {gene for gene, _, _ in experiment.gene_ranges} <= searched
    if experiment.dataset:
        assert experiment.data_path is not None and experiment.data_path.name.endswith(".json")


@pytest.mark.parametrize("path", EXPERIMENTS, ids=[p.stem for p in EXPERIMENTS])
def test_published_results_belong_to_their_experiment(path: Path) -> None:
    experiment = load_experiment(path)
    report_path = experiment.results_dir / "optimize.report.json"
    if not report_path.exists():
        pytest.skip(f"{path.name}: no published results yet (run it with --experiment)")
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["search"]["selection"] == experiment.selection
    assert report["search"]["population"] == experiment.population
    assert report["search"]["generations"] == experiment.generations
    abstaining = "+abstention" if experiment.unanswerable else ""
    assert report["objective"] == experiment.objective + abstaining
    assert report["search"].get("unanswerable", 0) == experiment.unanswerable
    assert report["search"].get("tpe_proposals", 0) == experiment.tpe_proposals
    # Every gene a published genome names is still a gene of the model.
    for trial in report["archive"]:
        assert set(trial["genome"]) <= set(GENE_NAMES)
    assert (experiment.results_dir / "optimize.report.md").exists()
    if experiment.dataset:  # a public dataset's text is never published with the results
        answers = [a for t in report["archive"] for _, a in t["evaluation"]["failures"]]
        assert answers and all(a is None for a in answers)
        assert not (experiment.results_dir / "explain").exists()
    assert (experiment.results_dir / "pareto.png").exists()
    if experiment.compare:
        assert len(report["comparison"]["seeds"]) == experiment.compare_seeds
        assert (experiment.results_dir / "compare.png").exists()


def _start(experiment: Experiment) -> tuple[Genome, set[Genome]]:
    """The baseline and preset seeds a run of ``experiment`` starts from today."""
    if experiment.baseline is not None:
        baseline = load_genome(experiment.baseline)
    else:  # the namespace's default: only the hashing embedder is lexical
        baseline = default_genome(experiment.embedder in (None, "hashing"))
    if not experiment.preset_seeds:
        return baseline, set()
    genes = narrowed_genes(
        {gene: (low, high) for gene, low, high in experiment.gene_ranges},
        GENE_SETS[experiment.gene_set],
    )
    seeds = {clamp_genome(g, genes) for g in PRESETS.values() if g != baseline}
    return baseline, seeds - {baseline}


@pytest.mark.parametrize("path", EXPERIMENTS, ids=[p.stem for p in EXPERIMENTS])
def test_published_results_start_where_a_run_starts_today(path: Path) -> None:
    """Results made before a preset or the genome changed no longer show what the
    file does: the run they record started from other genomes."""
    experiment = load_experiment(path)
    report_path = experiment.results_dir / "optimize.report.json"
    if not report_path.exists():
        pytest.skip(f"{path.name}: no published results yet (run it with --experiment)")
    report = json.loads(report_path.read_text(encoding="utf-8"))
    baseline, seeds = _start(experiment)
    assert Genome(**report["baseline"]["genome"]) == baseline
    published = {Genome(**t["genome"]) for t in report["archive"] if t["origin"] == "seed"}
    assert published == seeds


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[search]\npopulaton = 8\n", "search.populaton"),
        ("[serch]\n", "serch"),
        ('[search]\ngenes = "extended"\n[genes.ranges]\nnoSuchGene = [1, 2]\n', "genes.ranges"),
        ("[genes.ranges]\ntraversalDepth = [1, 9]\n", "genes.ranges"),
        ('[search]\nselection = "nsga4"\n', "search.selection"),
        ("[search]\npopulation = true\n", "search.population"),
        ('[data]\ndataset = "musique"\n', "data.path"),
        ("[search]\nscreen_share = 1.5\n", "search.screen_share"),
        ("[search]\ntpe_proposals = -1\n", "search.tpe_proposals"),
        ('[search]\nbaseline = "no-such-genome"\n', "search.baseline"),
        ('[search]\npreset_seeds = "no"\n', "search.preset_seeds"),
    ],
)
def test_a_bad_experiment_names_its_file_and_key(tmp_path: Path, text: str, key: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"bad\.toml: \[{key}\]"):
        load_experiment(path)


def test_unreadable_toml_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text("[search\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"broken\.toml: not valid TOML"):
        load_experiment(path)


def _evolve(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from mragent.cli import main; main()", "evolve", *args]
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=600)


def test_evolve_runs_an_experiment_into_its_results_folder(
    falkor: GraphStore, corpus_path: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "evolution"
    folder.mkdir()
    experiment = folder / "tiny.toml"
    experiment.write_text(
        f'[data]\ncorpus = "{corpus_path}"\n[engine]\ndb = "{falkor.secret_url}"\n'
        '[search]\npopulation = 4\ngenerations = 1\nseed = 11\nselection = "nsga3"\n',
        encoding="utf-8",
    )
    done = _evolve("--experiment", str(experiment))
    assert done.returncode in (0, 3), done.stderr
    report = json.loads((folder / "results" / "tiny" / "optimize.report.json").read_text())
    assert report["search"]["selection"] == "nsga3" and report["search"]["population"] == 4
    assert report["logbook"][-1]["gen"] == 1
    clash = _evolve("--experiment", str(experiment), "--population", "8")
    assert clash.returncode == 2
    assert "--population: set by the experiment" in clash.stderr
