"""What the facade returns: typed, serialisable results.

Each is a frozen pydantic model, so a result prints as JSON (``model_dump``),
travels through the MCP server as structured content, and reads as attributes
in Python. Stored versions are :class:`~mragent.memory.records.MemoryRecord`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from mragent.memory.records import TrustState

if TYPE_CHECKING:  # the write path; a session that only reads never imports it
    from mragent.memory.writer import WriteResult


class _Result(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Written(_Result):
    """What a remember or correct did.

    Attributes:
        id: The version written (or the identical one already there).
        lineage: The memory's first version id, stable across corrections.
        trust: The trust state the version starts in.
        scope: The scope it lives in.
        created: False when identical live text was already remembered.
        awaits_review: For an agent's correction of accepted versions: those
            versions, current until a human accepts the correction.
    """

    id: str
    lineage: str
    trust: TrustState
    scope: str
    created: bool = True
    awaits_review: list[str] = []

    @classmethod
    def of(cls, result: WriteResult, scope: str) -> Written:
        return cls(
            id=result.id,
            lineage=result.lineage,
            trust=result.trust,  # type: ignore[arg-type]
            scope=scope,
            created=result.created,
            awaits_review=list(result.awaits_review),
        )


class ContextItem(_Result):
    """One memory handed to synthesis, with its score and provenance.

    Attributes:
        id: The version's id.
        title, text: Its title and text.
        score: Its final score after reranking.
        trust: Its trust state (at ``as_of`` for a read in the past).
        scope, principal, source, lineage: Where it lives, who wrote it, where
            it comes from, which memory it is a version of.
        recorded_at: When it was written (epoch seconds).
    """

    id: str
    title: str | None
    text: str
    score: float
    trust: TrustState | None
    scope: str | None
    principal: str | None
    source: str | None
    lineage: str | None
    recorded_at: float | None


class Recall(_Result):
    """An answer reconstructed from memory.

    Attributes:
        question: The question asked.
        answer: The answer, or None when the memory does not cover it.
        abstained: True when there is no answer.
        sentence: The sentence the answer was taken from.
        context: The memories handed to synthesis, best first.
        timings_ms: Wall time per stage.
    """

    question: str
    answer: str | None
    abstained: bool
    sentence: str
    context: list[ContextItem]
    timings_ms: dict[str, float]


class Sourced(_Result):
    """A version found by its source, as the read view sees it now.

    Attributes:
        id, lineage: The version and the memory it is a version of.
        source: Its source (an integration's address for it).
        text: Its text.
        trust: Its trust state (at ``as_of`` for a read in the past).
        principal: Who wrote the version.
        recorded_at: When the version was written (epoch seconds).
        created_at: When the memory's first version was written.
    """

    id: str
    lineage: str
    source: str
    text: str
    trust: TrustState
    principal: str
    recorded_at: float
    created_at: float


class Forgotten(_Result):
    """What a forget or purge did: the versions tombstoned (or erased)."""

    ids: list[str]
