"""The one schema of a stored memory version, and its one serializer.

``memory_records.cypher`` reads every property of a version into this shape;
``get``, ``history``, ``export`` and ``import`` all go through
:class:`MemoryRecord`, so a field cannot mean one thing to one of them and
another to the next.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from mragent.core.errors import ConfigError
from mragent.core.times import check_time, stored_time

TrustState = Literal["pending", "accepted", "rejected"]


class MemoryRecord(BaseModel):
    """One version of one memory, with its provenance and lifecycle."""

    # Built when a record is first made: a recall never makes one.
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    id: str = Field(min_length=1, max_length=200)
    key: str = Field(min_length=1, max_length=200)
    scope: str
    text: str | None  # None once purged
    title: str | None = None
    source: str | None = None
    hash: str = Field(pattern=r"^[0-9a-f]{64}$")
    principal: str
    trust: TrustState
    lineage: str
    recorded_at: float
    superseded_at: float | None = None
    valid_from: float | None = None
    valid_to: float | None = None
    forgotten_at: float | None = None
    forget_reason: str | None = None
    forgotten_by: str | None = None
    # The human review of an agent's forget: confirmed (still forgotten) or restored.
    forget_reviewed_by: str | None = None
    forget_reviewed_at: float | None = None
    purged_at: float | None = None
    reviewed_by: str | None = None
    reviewed_at: float | None = None
    # Every trust state the version has had and when it began, oldest first; the
    # last is ``trust``. Read by as-of recall; empty in files that predate it.
    trust_at: list[float] = Field(default_factory=list)
    trust_log: list[TrustState] = Field(default_factory=list)
    given_tags: list[str] | None = None
    given_cues: list[str] | None = None
    supersedes: list[str] = Field(default_factory=list)
    depends_on: list[str] = Field(default_factory=list)

    @field_validator(
        "recorded_at", "superseded_at", "valid_from", "valid_to", "forgotten_at",
        "forget_reviewed_at", "purged_at", "reviewed_at",
    )  # fmt: skip
    @classmethod
    def _finite_time(cls, value: float | None, info: ValidationInfo) -> float | None:
        # An import file's nan, inf or 1e400 would reach the database otherwise.
        try:
            return check_time(value, str(info.field_name))
        except ConfigError as exc:
            raise ValueError(str(exc)) from None

    @model_validator(mode="after")
    def _trust_history(self) -> MemoryRecord:
        if not self.trust_at and not self.trust_log:
            # A record without history has had one state since it was recorded.
            object.__setattr__(self, "trust_at", [self.recorded_at])
            object.__setattr__(self, "trust_log", [self.trust])
        if len(self.trust_at) != len(self.trust_log):
            raise ValueError("trust_at and trust_log must have the same length")
        if self.trust_log[-1] != self.trust:
            raise ValueError(f"trust_log ends in {self.trust_log[-1]!r}, not trust {self.trust!r}")
        if self.trust_at != sorted(self.trust_at) or self.trust_at[0] < self.recorded_at:
            raise ValueError("trust_at must be ascending and start at or after recorded_at")
        return self

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> MemoryRecord:
        """Build from a ``memory_records`` row.

        A valid time stored before times were checked (text such as ``"soon"``,
        nan, inf) reads as open (None), so the memory can still be reviewed,
        forgotten, purged and exported.
        """
        valid = {key: stored_time(row.get(key)) for key in ("valid_from", "valid_to")}
        return cls.model_validate({**row, **valid})

    @property
    def forgotten(self) -> bool:
        return self.forgotten_at is not None

    @property
    def forget_awaits_review(self) -> bool:
        """Forgotten by an agent, and no human has reviewed the forget since."""
        return (
            self.forgotten_at is not None
            and self.purged_at is None
            and (self.forgotten_by or "").startswith("agent:")
            and (self.forget_reviewed_at is None or self.forget_reviewed_at < self.forgotten_at)
        )

    @property
    def current(self) -> bool:
        """Not superseded and not forgotten."""
        return self.superseded_at is None and self.forgotten_at is None

    def to_json(self) -> dict[str, Any]:
        """The serialized form (export files)."""
        return self.model_dump(mode="json")


def iso(ts: float | None) -> str | None:
    """Epoch seconds as ISO-8601 UTC (for people; records keep the number)."""
    return None if ts is None else datetime.fromtimestamp(ts, UTC).isoformat()
