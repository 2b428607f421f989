"""What a search optimises: answer accuracy, or measured support recall@5.

Two objective sets exist. ``accuracy`` (the reference corpus's): accuracy up;
work, context tokens and hops down. ``recall`` (datasets with gold supporting
passages): support recall@:data:`RECALL_K` up and accuracy up, then the same
three costs down. Recall is measured on the genome's retrieved order, never
estimated; accuracy stays an objective so the search cannot buy recall by
starving synthesis of context.
"""

from __future__ import annotations

from dataclasses import dataclass

from mragent.core.errors import ConfigError

RECALL_K = 5
"""The k of the recall objective (recall@2 and @10 are reported beside it)."""

RECALL_METRIC = f"recall@{RECALL_K}"
SCORE_POLICY = (
    "0.70*quality + 0.15*(1-work/BASE_work) + 0.10*(1-ctx/BASE_ctx) + 0.05*(1-hops/BASE_hops), "
    "terms clamped to [0,1]; quality = accuracy (accuracy objective) or "
    f"(recall@{RECALL_K} + accuracy)/2 (recall objective); BASE = default genome on the "
    "training questions; inside the search the deterministic work count stands in for latency; "
    "a timed-out genome scores 0"
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
OBJECTIVE_SETS: dict[str, Objectives] = {o.name: o for o in (ACCURACY, RECALL)}


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
