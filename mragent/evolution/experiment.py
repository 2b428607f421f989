"""Experiments as files: one TOML file declares everything an ``mragent evolve`` run needs.

An experiment names its data (a public dataset and its pooled corpus, or a
project-format corpus), the embedder, the engine, the genes and their ranges,
the objectives and constraints, the population, generations, seeds and the
comparison, and the racing rule. ``mragent evolve --experiment FILE`` runs it
and writes its results to ``results/<name>/`` beside the file (the file's stem
is its name). Every table and key is checked: an unknown key, a gene that no
longer exists or a range outside a gene's bounds is an error naming the file
and the key, before anything runs.

Example (``evolution/musique-e5.toml``)::

    [data]
    dataset = "musique"
    path = "musique_100.json"
    pool = "musique_100_corpus.json"
    root = "../../shared/datasets"   # relative to this file; $MRAGENT_DATASETS wins
    split = "0.5"

    [model]
    embedder = "e5-small"

    [search]
    objective = "recall"
    genes = "extended"
    population = 32
    generations = 20
    seed = 0

    [genes.ranges]
    traversalDepth = [1, 2]
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mragent.core.errors import ConfigError
from mragent.core.genome import GENE_SETS, PRESETS, GeneSet, load_genome, narrowed_genes
from mragent.evolution.fidelity import DEFAULT_MARGIN
from mragent.evolution.objectives import ACCURACY, RECALL
from mragent.evolution.study import SELECTIONS
from mragent.evolution.tpe_proposer import default_proposals

RESULTS = "results"
"""The folder beside the experiment files where each one's results go."""

_SCHEMA: dict[str, dict[str, type | tuple[type, ...]]] = {
    "data": {
        "dataset": str,
        "path": str,
        "pool": str,
        "corpus": str,
        "root": str,
        "split": str,
    },
    "model": {"embedder": str},
    "engine": {"db": str},
    "search": {
        "objective": str,
        "genes": str,
        "selection": str,
        "population": int,
        "generations": int,
        "seed": int,
        "workers": int,
        "screen_share": (float, int),
        "racing_margin": (float, int),
        "compare": bool,
        "compare_seeds": int,
        "tpe_proposals": int,
        "unanswerable": int,
        "baseline": str,
        "preset_seeds": bool,
    },
    "constraints": {"time_cap_s": (float, int), "retime_repeats": int},
    "genes": {"ranges": dict},
    "about": {"title": str, "summary": str},
}


@dataclass(frozen=True)
class Experiment:
    """One experiment file, validated.

    Attributes:
        path: The file.
        name: Its stem: the results folder's name.
        dataset: ``musique``, ``hotpotqa`` or None (a project-format corpus).
        data_path: The dataset's questions file, or the project-format corpus.
        pool: The dataset's pooled corpus (None: the questions' own passages).
        split: Held-out fraction or ids.
        embedder: Embedder spec (None: the default).
        db: Database URL (None: the embedded FalkorDB, or ``$MRAGENT_DB``).
        objective: ``recall`` or ``accuracy``.
        gene_set: The genes searched.
        gene_ranges: ``(gene, low, high)`` narrowing the search.
        selection: ``nsga2`` or ``nsga3``.
        population: Genomes per generation.
        generations: Generations after the first.
        seed: The run's seed.
        workers: Dask workers (1: in process).
        screen_share: Racing's screening share (0 or 1: no racing; None: the
            command's default, racing from 24 training questions).
        racing_margin: Racing's margin.
        compare: Whether the other searches run too.
        compare_seeds: Seeds compared.
        tpe_proposals: TPE proposals per generation inside DEAP's loop (default:
            half the population, as the command's).
        unanswerable: Unanswerable variants built (0: none; with some, abstention
            is an objective and false abstention a constraint).
        baseline: The genome the search starts from (a preset name, or a genome
            file relative to the experiment; None: the namespace's default).
        preset_seeds: Whether the other presets seed the first generation.
        time_cap_s: Per-genome time cap (None: none).
        retime_repeats: Repeats of the latency re-timing (None: the default).
        title: A one-line title for the results.
    """

    path: Path
    name: str
    dataset: str | None
    data_path: Path | None
    pool: Path | None
    split: str
    embedder: str | None
    db: str | None
    objective: str
    gene_set: GeneSet
    gene_ranges: tuple[tuple[str, float, float], ...]
    selection: str
    population: int
    generations: int
    seed: int
    workers: int
    screen_share: float | None
    racing_margin: float
    compare: bool
    compare_seeds: int
    tpe_proposals: int
    unanswerable: int
    baseline: str | None
    preset_seeds: bool
    time_cap_s: float | None
    retime_repeats: int | None
    title: str

    @property
    def results_dir(self) -> Path:
        """Where the run writes its reports: ``results/<name>/`` beside the file."""
        return self.path.parent / RESULTS / self.name


def _fail(path: Path, key: str, message: str) -> ConfigError:
    return ConfigError(f"{path}: [{key}] {message}")


def _checked(path: Path, raw: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The file's tables, each key present in the schema with the right type."""
    tables: dict[str, dict[str, Any]] = {}
    for table, values in raw.items():
        if table not in _SCHEMA:
            raise _fail(path, table, f"unknown table (known: {', '.join(_SCHEMA)})")
        if not isinstance(values, dict):
            raise _fail(path, table, "must be a table")
        for key, value in values.items():
            kind = _SCHEMA[table].get(key)
            if kind is None:
                known = ", ".join(_SCHEMA[table])
                raise _fail(path, f"{table}.{key}", f"unknown key (known: {known})")
            if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
                raise _fail(path, f"{table}.{key}", f"{value!r} has the wrong type")
        tables[table] = dict(values)
    return tables


def _ranges(
    path: Path, raw: dict[str, Any], gene_set: GeneSet
) -> tuple[tuple[str, float, float], ...]:
    ranges: list[tuple[str, float, float]] = []
    for gene, bounds in raw.items():
        ok = isinstance(bounds, list) and len(bounds) == 2
        if not ok or not all(
            isinstance(b, int | float) and not isinstance(b, bool) for b in bounds
        ):
            raise _fail(path, f"genes.ranges.{gene}", "must be [low, high]")
        ranges.append((gene, float(bounds[0]), float(bounds[1])))
    try:
        narrowed_genes({g: (lo, hi) for g, lo, hi in ranges}, GENE_SETS[gene_set])
    except ConfigError as exc:
        raise _fail(path, "genes.ranges", str(exc)) from None
    return tuple(ranges)


def _data_file(path: Path, root: Path, value: str | None) -> Path | None:
    if value is None:
        return None
    given = Path(value)
    return given if given.is_absolute() else Path(os.path.normpath(root / given))


def _baseline(path: Path, value: str | None) -> str | None:
    """The baseline genome's spec: a preset name as is, a file beside the experiment."""
    if value is None:
        return None
    spec = value if value in PRESETS else str(_data_file(path, path.parent, value))
    try:
        load_genome(spec)
    except ConfigError as exc:
        raise _fail(path, "search.baseline", str(exc)) from None
    return spec


def load_experiment(path: Path) -> Experiment:
    """Read and validate an experiment file.

    Raises:
        ConfigError: naming the file and key, on unreadable TOML, an unknown
            table or key, a wrong type, an unknown gene, objective or selection,
            or a range outside a gene's bounds.
    """
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the experiment ({exc.strerror})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    tables = _checked(path, raw)
    data, search = tables.get("data", {}), tables.get("search", {})
    constraints = tables.get("constraints", {})
    dataset = data.get("dataset")
    if dataset not in (None, "musique", "hotpotqa"):
        raise _fail(path, "data.dataset", f"unknown dataset {dataset!r} (musique, hotpotqa)")
    if dataset and "path" not in data:
        raise _fail(path, "data.path", f"dataset {dataset!r} needs its questions file")
    configured = os.environ.get("MRAGENT_DATASETS")
    root = Path(configured) if configured else path.parent / data.get("root", ".")
    objective = search.get("objective", "recall" if dataset else "accuracy")
    if objective not in (ACCURACY.name, RECALL.name):
        raise _fail(path, "search.objective", f"unknown objective {objective!r}")
    selection = search.get("selection", SELECTIONS[0])
    if selection not in SELECTIONS:
        raise _fail(path, "search.selection", f"unknown selection {selection!r}")
    try:
        gene_set = GeneSet(search.get("genes", GeneSet.CORE.value))
    except ValueError:
        raise _fail(path, "search.genes", f"unknown gene set {search['genes']!r}") from None
    share = search.get("screen_share")
    if share is not None and not 0.0 <= float(share) <= 1.0:
        raise _fail(path, "search.screen_share", "must lie in [0, 1] (0 or 1: no racing)")
    counts = ("population", "generations", "workers", "compare_seeds", "tpe_proposals")
    for key in (*counts, "unanswerable"):
        low = {"population": 4, "generations": 0, "tpe_proposals": 0, "unanswerable": 0}.get(key, 1)
        if key in search and search[key] < low:
            raise _fail(path, f"search.{key}", f"must be >= {low}")
    corpus = data.get("corpus")
    return Experiment(
        path=path,
        name=path.stem,
        dataset=dataset,
        # A project-format corpus lies beside the experiment, a dataset under its root.
        data_path=_data_file(path, root, data["path"])
        if dataset
        else _data_file(path, path.parent, corpus),
        pool=_data_file(path, root, data.get("pool")) if dataset else None,
        split=data.get("split", "0.3"),
        embedder=tables.get("model", {}).get("embedder"),
        db=tables.get("engine", {}).get("db"),
        objective=objective,
        gene_set=gene_set,
        gene_ranges=_ranges(path, tables.get("genes", {}).get("ranges", {}), gene_set),
        selection=selection,
        population=search.get("population", 16),
        generations=search.get("generations", 6),
        seed=search.get("seed", 0),
        workers=search.get("workers", 1),
        screen_share=None if share is None else float(share),
        racing_margin=float(search.get("racing_margin", DEFAULT_MARGIN)),
        compare=search.get("compare", False),
        compare_seeds=search.get("compare_seeds", 8),
        tpe_proposals=search.get("tpe_proposals", default_proposals(search.get("population", 16))),
        unanswerable=search.get("unanswerable", 0),
        baseline=_baseline(path, search.get("baseline")),
        preset_seeds=search.get("preset_seeds", True),
        time_cap_s=None if "time_cap_s" not in constraints else float(constraints["time_cap_s"]),
        retime_repeats=constraints.get("retime_repeats"),
        title=tables.get("about", {}).get("title", path.stem),
    )
