"""The genome: one bounded model, read by everything else."""

from __future__ import annotations

import json

import pytest

from mragent.core.errors import ConfigError
from mragent.core.genome import (
    CORE_GENES,
    GENE_NAMES,
    GENE_SETS,
    GENES,
    PRESETS,
    GeneSet,
    Genome,
    load_genome,
    make_genome,
    narrowed_genes,
)


def test_the_genes_with_the_documented_ranges() -> None:
    table = {g.name: (g.kind, g.low, g.high, g.choices, g.default) for g in GENES}
    assert table == {
        "cueK": ("int", 1, 12, (), 5),
        "efSearch": ("int", 16, 256, (), 64),
        "hybridAlpha": ("float", 0.0, 1.0, (), 0.5),
        "fusion": ("enum", None, None, ("rrf", "linear", "dbsf"), "rrf"),
        "traversalDepth": ("int", 1, 4, (), 2),
        "tagFanout": ("int", 1, 8, (), 4),
        "pruneThreshold": ("float", 0.0, 0.6, (), 0.15),
        "maxContent": ("int", 1, 20, (), 10),
        "rerank": ("enum", None, None, ("gnn", "ppr", "none"), "gnn"),
        "promptStrategy": (
            "enum",
            None,
            None,
            ("terse", "evidence-first", "prune-explicit"),
            "evidence-first",
        ),
        "passageWeight": ("float", 0.0, 2.0, (), 1.0),
        "bridgeWeight": ("float", 0.0, 2.0, (), 1.0),
        "graphWeight": ("float", 0.0, 2.0, (), 0.3),
        "rounds": ("int", 1, 3, (), 1),
        "roundCues": ("int", 1, 12, (), 4),
        "roundDecay": ("float", 0.0, 1.0, (), 0.5),
        "damping": ("float", 0.05, 0.95, (), 0.5),
        "aliasThreshold": ("float", 0.0, 1.0, (), 1.0),
        "aliasWeight": ("float", 0.0, 1.0, (), 0.0),
        "abstainCoverage": ("float", 0.0, 1.0, (), 0.5),
        "abstainNames": ("float", 0.0, 1.0, (), 1.0),
    }
    assert tuple(Genome.model_fields) == GENE_NAMES


def test_the_core_set_is_the_ten_pipeline_genes_and_extended_adds_the_others() -> None:
    assert [s.name for s in CORE_GENES] == list(GENE_NAMES[:10])
    extended = GENE_SETS[GeneSet.EXTENDED]
    assert [s.name for s in extended if s not in CORE_GENES] == [
        "passageWeight",
        "bridgeWeight",
        "graphWeight",
        "rounds",
        "roundCues",
        "roundDecay",
        "damping",
        "aliasThreshold",
        "aliasWeight",
        "abstainCoverage",
        "abstainNames",
    ]
    assert {s.stage for s in extended if s not in CORE_GENES} == {
        "blend",
        "rounds",
        "synthesis",
        "reconstruction",
    }
    # A range narrows only a searched gene: the blend weights are not in the core search.
    narrowed = {s.name: s.high for s in narrowed_genes({"graphWeight": (0.0, 1.0)}, extended)}
    assert narrowed["graphWeight"] == 1.0
    with pytest.raises(ConfigError, match="not a numeric gene of the search"):
        narrowed_genes({"graphWeight": (0.0, 1.0)})


@pytest.mark.parametrize(
    "gene, value, needle",
    [
        ("cueK", 13, "gene cueK=13 is invalid (allowed: 1..12)"),
        ("traversalDepth", 0, "gene traversalDepth=0 is invalid (allowed: 1..4)"),
        ("pruneThreshold", 0.9, "allowed: 0..0.6"),
        ("passageWeight", -0.1, "gene passageWeight=-0.1 is invalid (allowed: 0..2)"),
        ("bridgeWeight", 2.5, "gene bridgeWeight=2.5 is invalid (allowed: 0..2)"),
        ("graphWeight", True, "gene graphWeight=True is invalid (allowed: 0..2)"),
        ("fusion", "max", "allowed: one of rrf, linear, dbsf"),
        ("traversalDepth", "2; DROP", "traversalDepth"),
    ],
)
def test_validation_names_the_gene_and_its_range(gene: str, value: object, needle: str) -> None:
    with pytest.raises(ConfigError) as info:
        make_genome({gene: value})
    assert needle in str(info.value)


def test_unknown_gene_is_refused() -> None:
    with pytest.raises(ConfigError, match="depth"):
        make_genome({"depth": 3})


def test_genomes_round_trip_through_json() -> None:
    for genome in PRESETS.values():
        assert make_genome(json.loads(json.dumps(genome.to_json_dict()))) == genome


def test_genome_is_frozen_and_hashable() -> None:
    genome = Genome()
    with pytest.raises(Exception):  # noqa: B017 - pydantic's frozen error type
        genome.cueK = 3  # type: ignore[misc]
    assert len({Genome(), Genome(), Genome(cueK=3)}) == 2


def test_load_genome_from_preset_file_and_report(tmp_path) -> None:
    assert load_genome("deep").traversalDepth == 3
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"traversalDepth": 4}))
    assert load_genome(str(path)).traversalDepth == 4
    report = tmp_path / "optimize.report.json"
    report.write_text(json.dumps({"evolved": {"genome": {"cueK": 7}}}))
    assert load_genome(str(report)).cueK == 7
    with pytest.raises(ConfigError, match="neither a preset"):
        load_genome("no-such-thing")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(ConfigError, match=r"bad\.json"):
        load_genome(str(bad))
