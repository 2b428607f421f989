"""What a search optimises: answer accuracy, or measured support recall@5.

Two objective sets exist. ``accuracy`` (the reference corpus's): accuracy up;
work, context tokens and hops down. ``recall`` (datasets with gold supporting
passages): support recall@:data:`RECALL_K` up and accuracy up, then the same
three costs down. Recall is measured on the genome's retrieved order, never
estimated; accuracy stays an objective so the search cannot buy recall by
starving synthesis of context.

Either set can add ``abstention`` (``accuracy+abstention``, ``recall+abstention``):
the share of unanswerable variants (a supporting passage removed:
:mod:`mragent.apps.unanswerable`) abstained on, maximised beside the set's quality
objectives, under the constraint that at most
:data:`~mragent.core.retrieval.abstention.MAX_FALSE_ABSTENTION` of the answerable
questions are abstained on (a genome over it is dominated, as a timed-out one is).
"""

from __future__ import annotations

from dataclasses import dataclass

from mragent.core.errors import ConfigError

RECALL_K = 5
"""The k of the recall objective (recall@2 and @10 are reported beside it)."""

RECALL_METRIC = f"recall@{RECALL_K}"
ABSTENTION = "abstention"
"""The abstention objective's name (and the suffix that adds it to a set)."""
SCORE_POLICY = (
    "0.70*quality + 0.15*(1-work/BASE_work) + 0.10*(1-ctx/BASE_ctx) + 0.05*(1-hops/BASE_hops), "
    "terms clamped to [0,1]; quality = the mean of the quality objectives: accuracy "
    f"(accuracy objective) or recall@{RECALL_K} and accuracy (recall objective), and "
    "abstention on unanswerable variants when it is one; BASE = default genome on the "
    "training questions; inside the search the deterministic work count stands in for latency; "
    "a timed-out genome, or one over the false-abstention bound, scores 0"
)
"""How a genome is scored, as the reports state it."""


@dataclass(frozen=True)
class Objectives:
    """One objective set.

    Attributes:
        name: ``accuracy`` or ``recall``.
        names: Objective names, in the order of an evaluation's values.
        weights: DEAP fitness weights (+1 maximised, -1 minimised).
        quality: The maximised metrics, which the gate requires not to regress.
    """

    name: str
    names: tuple[str, ...]
    weights: tuple[float, ...]
    quality: tuple[str, ...]

    def directions(self) -> dict[str, str]:
        """``objective -> "max" | "min"`` (for reports)."""
        return {n: "max" if w > 0 else "min" for n, w in zip(self.names, self.weights, strict=True)}


ACCURACY = Objectives(
    "accuracy",
    ("accuracy", "cost", "context_tokens", "hops"),
    (1.0, -1.0, -1.0, -1.0),
    ("accuracy",),
)
RECALL = Objectives(
    "recall",
    (RECALL_METRIC, "accuracy", "cost", "context_tokens", "hops"),
    (1.0, 1.0, -1.0, -1.0, -1.0),
    (RECALL_METRIC, "accuracy"),
)


def with_abstention(base: Objectives) -> Objectives:
    """``base`` with :data:`ABSTENTION` as its last quality objective."""
    quality = len(base.quality)
    return Objectives(
        f"{base.name}+{ABSTENTION}",
        (*base.names[:quality], ABSTENTION, *base.names[quality:]),
        (*base.weights[:quality], 1.0, *base.weights[quality:]),
        (*base.quality, ABSTENTION),
    )


OBJECTIVE_SETS: dict[str, Objectives] = {
    o.name: o for base in (ACCURACY, RECALL) for o in (base, with_abstention(base))
}


def objectives_named(name: str) -> Objectives:
    """The objective set called ``name``.

    Raises:
        ConfigError: on an unknown name.
    """
    try:
        return OBJECTIVE_SETS[name]
    except KeyError:
        raise ConfigError(
            f"unknown objective {name!r} (one of {', '.join(OBJECTIVE_SETS)})"
        ) from None
