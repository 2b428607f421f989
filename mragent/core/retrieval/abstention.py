"""A calibrated abstention rule: logistic regression on the evidence profile.

:func:`fit_rule` takes the profiles (:mod:`mragent.core.retrieval.evidence`) of
answerable and unanswerable training reconstructions, standardises each
feature, fits class-balanced L2-regularised logistic regression by Newton's
method (numpy only), and puts the threshold on the fitted probability of
"answerable" as high as it can go while abstaining on at most ``max_false``
of the training answerables. The result is a frozen :class:`AbstentionRule`
that names what it was fitted on (question ids among them), so a report can
show that the questions it is judged on were never seen by the fit.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mragent.core.errors import ConfigError
from mragent.core.files import write_json_atomic

FORMAT = "mragent-abstention/1"
MAX_FALSE_ABSTENTION = 0.10
L2 = 1.0  # ridge on the standardised weights: a few dozen questions overfit otherwise
NEWTON_STEPS = 50


@dataclass(frozen=True)
class AbstentionRule:
    """Abstain when ``sigmoid(w · (x - mean) / scale + bias) < threshold``.

    Attributes:
        features: Feature names, in the order of ``weights``.
        mean: Per-feature training mean.
        scale: Per-feature training standard deviation (1 where it was 0).
        weights: Logistic weights on the standardised features.
        bias: Logistic intercept.
        threshold: Probability of "answerable" under which the rule abstains.
        fitted_on: What it was fitted on: question ids (answerable and
            unanswerable), counts, the training false-abstention rate and bound.
    """

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float
    fitted_on: dict[str, Any] = field(default_factory=dict)

    def score(self, profile: Mapping[str, float]) -> float:
        """The fitted probability that the evidence answers the question."""
        x = np.array([profile[name] for name in self.features], dtype=np.float64)
        z = (x - np.array(self.mean)) / np.array(self.scale)
        return _sigmoid(float(z @ np.array(self.weights)) + self.bias)

    def abstains(self, profile: Mapping[str, float]) -> bool:
        """Whether the rule abstains on this evidence profile."""
        return self.score(profile) < self.threshold

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, **asdict(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AbstentionRule:
        """A rule from :meth:`to_dict`'s form, or from a bench report holding one.

        Raises:
            ConfigError: when ``data`` is neither.
        """
        inner = data.get("abstention")
        if isinstance(inner, Mapping) and isinstance(inner.get("rule"), Mapping):
            data = inner["rule"]
        if data.get("format") != FORMAT:
            raise ConfigError(f"not an abstention rule (format {data.get('format')!r})")
        try:
            rule = cls(
                features=tuple(str(f) for f in data["features"]),
                mean=tuple(float(v) for v in data["mean"]),
                scale=tuple(float(v) for v in data["scale"]),
                weights=tuple(float(v) for v in data["weights"]),
                bias=float(data["bias"]),
                threshold=float(data["threshold"]),
                fitted_on=dict(data.get("fitted_on") or {}),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"abstention rule is malformed: {exc}") from None
        n = len(rule.features)
        if not n or {len(rule.mean), len(rule.scale), len(rule.weights)} != {n}:
            raise ConfigError("abstention rule: features, mean, scale and weights differ in length")
        return rule

    def save(self, path: Path) -> None:
        """Write the rule to ``path`` as JSON, atomically (what :meth:`load` reads)."""
        write_json_atomic(path, self.to_dict())

    @classmethod
    def load(cls, path: Path) -> AbstentionRule:
        """Read a rule file (or a bench report that holds one).

        Raises:
            ConfigError: when the file is unreadable or holds no rule.
        """
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot read abstention rule {path}: {exc}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{path} holds no abstention rule")
        return cls.from_dict(data)


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


def _logistic(x: np.ndarray, y: np.ndarray, w_sample: np.ndarray) -> np.ndarray:
    """Weighted ridge logistic regression by Newton's method; last entry is the bias."""
    design = np.hstack([x, np.ones((len(x), 1))])
    ridge = np.full(design.shape[1], L2)
    ridge[-1] = 0.0  # the intercept is not shrunk
    beta = np.zeros(design.shape[1])
    for _ in range(NEWTON_STEPS):
        p = 1.0 / (1.0 + np.exp(-(design @ beta)))
        grad = design.T @ (w_sample * (p - y)) + ridge * beta
        hess = (design * (w_sample * p * (1 - p))[:, None]).T @ design + np.diag(ridge)
        step = np.linalg.solve(hess + 1e-9 * np.eye(len(beta)), grad)
        beta -= step
        if float(np.max(np.abs(step))) < 1e-10:
            break
    return beta


def _threshold(scores: np.ndarray, max_false: float) -> float:
    """The highest cut that abstains (score < cut) on at most ``max_false`` of these
    answerable scores; halfway to the next score, so a near tie is not abstained on."""
    ordered = np.sort(scores)
    allowed = math.floor(max_false * len(ordered) + 1e-9)
    if allowed == 0:
        return float(ordered[0])
    return float((ordered[allowed - 1] + ordered[allowed]) / 2)


def fit_rule(
    answerable: Sequence[Mapping[str, float]],
    unanswerable: Sequence[Mapping[str, float]],
    *,
    features: Sequence[str],
    fitted_on: Mapping[str, Any],
    max_false: float = MAX_FALSE_ABSTENTION,
) -> AbstentionRule:
    """Fit a rule on training profiles.

    Args:
        answerable: Profiles of reconstructions that should be answered.
        unanswerable: Profiles of reconstructions that should be abstained on.
        features: The features to use, in order.
        fitted_on: Provenance stored in the rule (question ids, genome, corpus).
        max_false: Most abstention allowed on the training answerables.

    Raises:
        ConfigError: without examples of both classes, or on a bound outside [0, 1).
    """
    if not answerable or not unanswerable:
        raise ConfigError("an abstention rule needs answerable and unanswerable examples")
    if not 0.0 <= max_false < 1.0:
        raise ConfigError(f"false-abstention bound {max_false} must be in [0, 1)")
    names = tuple(features)
    rows = [[p[n] for n in names] for p in [*answerable, *unanswerable]]
    x = np.array(rows, dtype=np.float64)
    y = np.array([1.0] * len(answerable) + [0.0] * len(unanswerable))
    # Class-balanced: each class weighs as much as the other, whatever the counts.
    w_sample = np.where(y == 1, len(y) / (2 * len(answerable)), len(y) / (2 * len(unanswerable)))
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    beta = _logistic((x - mean) / scale, y, w_sample)
    probe = AbstentionRule(names, tuple(mean), tuple(scale), tuple(beta[:-1]), float(beta[-1]), 0)
    pos = np.array([probe.score(p) for p in answerable])
    cut = _threshold(pos, max_false)
    neg = np.array([probe.score(p) for p in unanswerable])
    provenance = {
        **fitted_on,
        "answerable": len(answerable),
        "unanswerable": len(unanswerable),
        "max_false_abstention": max_false,
        "train_false_abstention": float(np.mean(pos < cut)),
        "train_abstention": float(np.mean(neg < cut)),
    }
    return AbstentionRule(
        names,
        tuple(float(v) for v in mean),
        tuple(float(v) for v in scale),
        tuple(float(v) for v in beta[:-1]),
        float(beta[-1]),
        cut,
        provenance,
    )
