"""What the negative evaluation found: its checks and the rates a report shows.

See :mod:`mragent.apps.negative.run` for how the checks are made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CATEGORIES = ("forgotten", "rejected", "superseded", "out_of_scope", "pending", "as_of")
LONG_LIVED = ("long-lived", "long-lived+include_pending")  # readers opened before the changes


@dataclass(frozen=True)
class Check:
    """One question asked through one read view, and where its text was found.

    Attributes:
        category: One of :data:`CATEGORIES`.
        view: Which read view asked (``default``, ``include_pending``, ``as_of`` ...).
        question: The question.
        text: The distinctive text looked for.
        expect: ``absent`` or ``present``.
        found: Surface -> whether the text (or one of the fact's version ids) was there.
    """

    category: str
    view: str
    question: str
    text: str
    expect: str
    found: dict[str, bool]

    @property
    def failures(self) -> list[str]:
        """Surfaces that contradict the expectation."""
        want = self.expect == "present"
        return [surface for surface, seen in self.found.items() if seen != want]

    @property
    def passed(self) -> bool:
        return not self.failures


@dataclass
class NegativeReport:
    """What :func:`run_negative` found.

    Attributes:
        engine: The database engine evaluated.
        ns: The scratch namespace (deleted when the run ends).
        checks: Every absence probe and presence control.
    """

    engine: str
    ns: str
    checks: list[Check] = field(default_factory=list)

    def _rate(self, category: str, expect: str) -> float:
        pairs = [
            seen == (expect == "present")
            for check in self.checks
            if check.category == category and check.expect == expect
            for seen in check.found.values()
        ]
        return sum(pairs) / len(pairs) if pairs else 0.0

    @property
    def absence(self) -> dict[str, float]:
        """Category -> share of (probe, surface) pairs where the text was absent."""
        return {category: self._rate(category, "absent") for category in CATEGORIES}

    @property
    def long_lived(self) -> dict[str, float]:
        """Category -> share of (check, surface) pairs the readers opened before the
        changes got right (absent where hidden, found where a control expects it)."""
        out = {}
        for category in CATEGORIES:
            pairs = [
                seen == (check.expect == "present")
                for check in self.checks
                if check.category == category and check.view in LONG_LIVED
                for seen in check.found.values()
            ]
            out[category] = sum(pairs) / len(pairs) if pairs else 1.0
        return out

    @property
    def presence(self) -> dict[str, float]:
        """Category -> share of control (check, surface) pairs where the text was found."""
        return {category: self._rate(category, "present") for category in CATEGORIES}

    @property
    def ok(self) -> bool:
        """Every absence rate and every control at 100%."""
        return all(rate == 1.0 for rate in [*self.absence.values(), *self.presence.values()])

    def failures(self) -> list[str]:
        """One line per failed check, naming the surfaces."""
        return [
            f"{c.category} ({c.view}, {c.question!r}): {c.text!r} "
            + ("found on " if c.expect == "absent" else "missing from ")
            + ", ".join(c.failures)
            for c in self.checks
            if not c.passed
        ]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (the ``negative`` section of ``bench --json``)."""
        return {
            "engine": self.engine,
            "namespace": self.ns,
            "ok": self.ok,
            "absence": self.absence,
            "presence": self.presence,
            "long_lived": self.long_lived,
            "failures": self.failures(),
            "checks": [
                {
                    "category": c.category,
                    "view": c.view,
                    "question": c.question,
                    "text": c.text,
                    "expect": c.expect,
                    "found": c.found,
                }
                for c in self.checks
            ],
        }
