"""The genome: the single source of truth for the pipeline's knobs.

Names, types, ranges, defaults and stages live in :class:`Genome` only. The CLI,
validation, the evolutionary encoding and reports all read :data:`GENES`, which
is derived from the model, so a gene is added or re-ranged in exactly one place.

Two gene sets are searched (:data:`GENE_SETS`): ``core``, the ten genes of the
pipeline's stages, and ``extended``, which adds the rounds (``rounds``,
``roundCues``, ``roundDecay``), ppr's ``damping``, the weights of the final
blend (passage relevance, bridge evidence, graph score), the alias edges
(``aliasThreshold``, ``aliasWeight``) and the abstention thresholds
(``abstainCoverage``, ``abstainNames``). A search over the core
set leaves the other genes at their defaults.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mragent.core.errors import ConfigError


class Fusion(str, Enum):
    """How dense and sparse cue scores are combined."""

    RRF = "rrf"
    LINEAR = "linear"
    DBSF = "dbsf"


class Rerank(str, Enum):
    """Rerank applied to the reconstructed subgraph."""

    GNN = "gnn"
    PPR = "ppr"
    NONE = "none"


class PromptStrategy(str, Enum):
    """How the context handed to synthesis is assembled."""

    TERSE = "terse"
    EVIDENCE_FIRST = "evidence-first"
    PRUNE_EXPLICIT = "prune-explicit"


class GeneSet(str, Enum):
    """Which genes a search varies (the others keep their defaults)."""

    CORE = "core"
    EXTENDED = "extended"


def _gene(default: Any, stage: str, doc: str, *, extended: bool = False, **bounds: Any) -> Any:
    # strict for numbers: a gene is a number, never true or "5" coerced into one.
    strict = isinstance(default, int | float) or None
    extra = {"stage": stage, "set": (GeneSet.EXTENDED if extended else GeneSet.CORE).value}
    return Field(default, description=doc, json_schema_extra=extra, strict=strict, **bounds)


class Genome(BaseModel):
    """A frozen, bounded set of retrieval parameters.

    Example:
        >>> Genome(traversalDepth=3).traversalDepth
        3
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_enum_values=False)

    cueK: int = _gene(5, "cue search", "entry cues kept", ge=1, le=12)
    efSearch: int = _gene(64, "cue search", "HNSW search depth (recall ceiling)", ge=16, le=256)
    hybridAlpha: float = _gene(0.5, "cue search", "sparse (0) to dense (1) weight", ge=0.0, le=1.0)
    fusion: Fusion = _gene(Fusion.RRF, "cue search", "score fusion")
    traversalDepth: int = _gene(2, "reconstruction", "LINKED_TO*1..N", ge=1, le=4)
    tagFanout: int = _gene(4, "reconstruction", "strongest links expanded per node", ge=1, le=8)
    pruneThreshold: float = _gene(0.15, "reconstruction", "path evidence floor", ge=0.0, le=0.6)
    maxContent: int = _gene(10, "reconstruction", "contents handed to synthesis", ge=1, le=20)
    rerank: Rerank = _gene(Rerank.GNN, "synthesis", "graph rerank")
    promptStrategy: PromptStrategy = _gene(
        PromptStrategy.EVIDENCE_FIRST, "synthesis", "context assembly"
    )
    passageWeight: float = _gene(
        1.0, "blend", "weight of a passage's own BM25 relevance", extended=True, ge=0.0, le=2.0
    )
    bridgeWeight: float = _gene(
        1.0, "blend", "weight of being mentioned by a relevant seed", extended=True, ge=0.0, le=2.0
    )
    graphWeight: float = _gene(
        0.3, "blend", "weight of the reranked graph score", extended=True, ge=0.0, le=2.0
    )
    rounds: int = _gene(
        1, "rounds", "reconstruction rounds (a round's best contents cue the next)",
        extended=True, ge=1, le=3,
    )  # fmt: skip
    roundCues: int = _gene(
        4, "rounds", "contents whose tags cue the next round", extended=True, ge=1, le=12
    )
    roundDecay: float = _gene(
        0.5,
        "rounds",
        "a chain's weight on the reached content's nearness",
        extended=True,
        ge=0.0,
        le=1.0,
    )
    damping: float = _gene(
        0.5, "synthesis", "ppr: probability of following an edge", extended=True, ge=0.05, le=0.95
    )
    aliasThreshold: float = _gene(
        1.0,
        "reconstruction",
        "name similarity an alias edge needs to be walked",
        extended=True,
        ge=0.0,
        le=1.0,
    )
    aliasWeight: float = _gene(
        0.0,
        "reconstruction",
        "weight of an alias edge (0: aliases are not walked)",
        extended=True,
        ge=0.0,
        le=1.0,
    )
    abstainCoverage: float = _gene(
        0.5,
        "synthesis",
        "share of the question (rarity-weighted) the context must cover, else abstain",
        extended=True,
        ge=0.0,
        le=1.0,
    )
    abstainNames: float = _gene(
        1.0,
        "synthesis",
        "share of the question's names the context must hold, else abstain",
        extended=True,
        ge=0.0,
        le=1.0,
    )

    def to_json_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict (enums as their values)."""
        return self.model_dump(mode="json")

    def replace(self, **changes: Any) -> Genome:
        """A validated copy with some genes changed."""
        return make_genome({**self.to_json_dict(), **changes})


@dataclass(frozen=True)
class GeneSpec:
    """One gene's metadata, read off the :class:`Genome` model."""

    name: str
    kind: str  # "int" | "float" | "enum"
    stage: str
    doc: str
    default: Any
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    gene_set: GeneSet = GeneSet.CORE

    def describe_range(self) -> str:
        if self.kind == "enum":
            return "one of " + ", ".join(self.choices)
        return f"{self.low:g}..{self.high:g}"


def _read_specs() -> tuple[GeneSpec, ...]:
    specs = []
    for name, field in Genome.model_fields.items():
        low = high = None
        for meta in field.metadata:
            low = getattr(meta, "ge", low)
            high = getattr(meta, "le", high)
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        stage, gene_set = str(extra.get("stage", "")), GeneSet(extra["set"])
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, Enum):
            choices = tuple(member.value for member in annotation)
            specs.append(
                GeneSpec(
                    name,
                    "enum",
                    stage,
                    field.description or "",
                    field.default.value,
                    choices=choices,
                    gene_set=gene_set,
                )
            )
        else:
            kind = "int" if annotation is int else "float"
            doc = field.description or ""
            specs.append(GeneSpec(name, kind, stage, doc, field.default, low, high, (), gene_set))
    return tuple(specs)


GENES: tuple[GeneSpec, ...] = _read_specs()
GENE_NAMES: tuple[str, ...] = tuple(spec.name for spec in GENES)
CORE_GENES: tuple[GeneSpec, ...] = tuple(s for s in GENES if s.gene_set is GeneSet.CORE)
# The genes each set searches: the extended set is every gene of the model.
GENE_SETS: dict[GeneSet, tuple[GeneSpec, ...]] = {
    GeneSet.CORE: CORE_GENES,
    GeneSet.EXTENDED: GENES,
}


def narrowed_genes(
    ranges: Mapping[str, tuple[float, float]], genes: tuple[GeneSpec, ...] = CORE_GENES
) -> tuple[GeneSpec, ...]:
    """``genes`` with some numeric ranges narrowed, for a search that must skip a corner.

    The model's own range stays the outer bound, so a narrowed gene can never
    accept a value :class:`Genome` would refuse.

    Args:
        ranges: ``gene name -> (low, high)``, inclusive, inside the model's range.
        genes: The searched gene set (:data:`GENE_SETS`); a range must name one of them.

    Raises:
        ConfigError: on an unknown or enum gene, or a range outside the model's.
    """
    by_name = {spec.name: spec for spec in genes}
    for name, (low, high) in ranges.items():
        spec = by_name.get(name)
        if spec is None or spec.kind == "enum":
            names = ", ".join(spec.name for spec in genes)
            raise ConfigError(f"gene {name!r} is not a numeric gene of the search ({names})")
        assert spec.low is not None and spec.high is not None
        if not spec.low <= low <= high <= spec.high:
            raise ConfigError(
                f"gene {name} range {low:g}..{high:g} is outside its allowed "
                f"{spec.describe_range()} (or empty)"
            )
    return tuple(
        replace(spec, low=ranges[spec.name][0], high=ranges[spec.name][1])
        if spec.name in ranges
        else spec
        for spec in genes
    )


def make_genome(values: dict[str, Any]) -> Genome:
    """Validate a mapping into a :class:`Genome`.

    Raises:
        ConfigError: naming each invalid gene and its allowed range.
    """
    try:
        return Genome.model_validate(values)
    except ValidationError as exc:
        by_name = {spec.name: spec for spec in GENES}
        lines = []
        for err in exc.errors():
            name = str(err["loc"][0]) if err["loc"] else "?"
            spec = by_name.get(name)
            allowed = f" (allowed: {spec.describe_range()})" if spec else ""
            got = err.get("input")
            lines.append(f"gene {name}={got!r} is invalid{allowed}")
        raise ConfigError("; ".join(lines), lines) from None


PRESETS: dict[str, Genome] = {
    "default": Genome(),
    # Shallow and cheap: one hop, few cues, short context.
    "fast": Genome(
        cueK=3,
        efSearch=32,
        traversalDepth=1,
        tagFanout=3,
        maxContent=4,
        promptStrategy=PromptStrategy.TERSE,
    ),
    # Deep multi-hop reconstruction for bridge questions.
    "deep": Genome(
        cueK=6, efSearch=128, traversalDepth=3, tagFanout=6, pruneThreshold=0.05, maxContent=12
    ),
    # Exhaustive: every knob at its recall-maximising end.
    "wide": Genome(
        cueK=12, efSearch=256, traversalDepth=4, tagFanout=8, pruneThreshold=0.0, maxContent=20
    ),
    # The default of a namespace stamped with a real model (default_genome): the gate's
    # winner of evolution/musique-e5.toml, chosen on the MuSiQue-100 training half with
    # e5-small (benchmarks/results/quality.md): two rounds, one hop from the entry
    # cues, the 20 nearest passages as the pool, one content handing on, aliases
    # walked, relevance mostly from the passage embedding. Its abstention genes are
    # the earlier preset's (coverage alone: a question's names are often not spelled
    # in the passages that answer it): that search had no unanswerable question to
    # weigh them by.
    "real-model": Genome(
        cueK=8,
        efSearch=20,
        hybridAlpha=0.875,
        traversalDepth=1,
        tagFanout=5,
        pruneThreshold=0.555,
        maxContent=13,
        rerank=Rerank.NONE,
        passageWeight=1.676,
        bridgeWeight=0.669,
        graphWeight=0.996,
        rounds=2,
        roundCues=1,
        roundDecay=0.635,
        damping=0.72,
        aliasThreshold=0.867,
        aliasWeight=0.293,
        abstainNames=0.0,
    ),
}


REAL_MODEL = "real-model"


def default_genome(lexical: bool) -> Genome:
    """The genome a namespace is read with when none is given: ``default`` when its
    embedder is lexical (the hashing embedder), :data:`REAL_MODEL` when it embeds meaning."""
    return PRESETS["default" if lexical else REAL_MODEL]


def load_genome(spec: str | None) -> Genome:
    """Load a genome from a preset name, a genome JSON file, or a report JSON.

    A report file (``optimize.report.json``) contributes its evolved genome.

    Raises:
        ConfigError: when the name is unknown or the file is invalid.
    """
    if spec is None:
        return PRESETS["default"]
    if spec in PRESETS:
        return PRESETS[spec]
    path = Path(spec)
    if not path.exists():
        raise ConfigError(
            f"genome {spec!r} is neither a preset ({', '.join(PRESETS)}) nor an existing file"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a readable genome JSON file (not UTF-8 text)") from None
    except RecursionError:
        raise ConfigError(f"{path}: not a readable genome JSON file (nested too deeply)") from None
    except (OSError, ValueError) as exc:  # ValueError: JSON errors, oversized numbers
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ConfigError(f"{path}: not a readable genome JSON file ({message})") from None
    if isinstance(data, dict) and "evolved" in data and isinstance(data["evolved"], dict):
        data = data["evolved"].get("genome", data["evolved"])
    if isinstance(data, dict) and "genome" in data and isinstance(data["genome"], dict):
        data = data["genome"]
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a genome must be a JSON object")
    try:
        return make_genome(data)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}", exc.errors) from None
