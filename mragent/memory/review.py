"""Human review of agent-written memories, and which agents are trusted.

Review needs a human principal other than the memory's writer; rejecting a
memory returns everything that depends on it, transitively, to pending. Only a
human grants an agent trust, so that its new memories start accepted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mragent.core.errors import ConfigError, WriteRefused
from mragent.core.view import DEFAULT_SCOPE, validate_scope
from mragent.memory.ingest import prepare_write
from mragent.memory.principal import Principal
from mragent.memory.records import MemoryRecord
from mragent.memory.versions import MemoryVersions


class MemoryReview(MemoryVersions):
    """The review queue, accept and reject, and agent trust, for one namespace."""

    def pending(self, scopes: Sequence[str] = (DEFAULT_SCOPE,), limit: int = 100) -> list[dict]:
        """The review queue: current pending versions, oldest first."""
        for scope in scopes:
            validate_scope(scope)
        return self.store.run(
            "memory_pending", {"ns": self.ns, "scopes": list(scopes), "limit": limit}
        )

    def accept(
        self, memory_id: str, *, principal: Principal, scope: str = DEFAULT_SCOPE
    ) -> MemoryRecord:
        """A human reviewer accepts a version written by someone else."""
        record = self._reviewable(memory_id, principal, scope)
        with self._audited(
            principal,
            "accept",
            record.id,
            record.hash,
            record.hash,
            {"trust": [record.trust, "accepted"]},
        ):
            self.store.run("memory_accept", self._review_params(record, principal))
        return self.get(memory_id, scope)

    def reject(
        self, memory_id: str, *, principal: Principal, scope: str = DEFAULT_SCOPE
    ) -> list[str]:
        """A human reviewer rejects a version; its dependents return to pending.

        Returns:
            The ids demoted from accepted to pending (transitively).
        """
        record = self._reviewable(memory_id, principal, scope)
        # The demotions happen in the same statement as the rejection, so the
        # record names the cascade rather than the ids it will reach.
        with self._audited(
            principal,
            "reject",
            record.id,
            record.hash,
            record.hash,
            {
                "trust": [record.trust, "rejected"],
                "cascade": "dependents accepted -> pending",
            },
        ):
            rows = self.store.run("memory_reject", self._review_params(record, principal))
        return sorted(rows[0]["demoted"]) if rows else []

    def set_trust(self, agent: Principal, *, principal: Principal, trusted: bool) -> list[str]:
        """Let ``agent``'s new memories start accepted (or stop it).

        Raises:
            WriteRefused: unless a human grants it, and only to an agent.
        """
        if not principal.is_human:
            raise WriteRefused(f"only a human principal can change trust, not {principal}")
        if agent.kind != "agent":
            raise ConfigError(f"trust is granted to agents, not {agent}")
        space = prepare_write(self.store, self.ns, self.embedder)
        current = set(space.get("trusted") or [])
        updated = sorted(current | {str(agent)} if trusted else current - {str(agent)})
        action_detail = {"agent": str(agent), "trusted": trusted}
        with self._audited(principal, "trust", str(agent), None, None, action_detail):
            self.store.run("space_trust", {"ns": self.ns, "trusted": updated})
        return updated

    def _reviewable(self, memory_id: str, principal: Principal, scope: str) -> MemoryRecord:
        if not principal.is_human:
            raise WriteRefused(f"review needs a human principal, not {principal}")
        record = self.get(memory_id, scope)
        if record.principal == str(principal):
            raise WriteRefused(f"{principal} wrote memory {memory_id!r} and cannot review it")
        if record.forgotten:
            raise WriteRefused(f"memory {memory_id!r} was forgotten")
        return record

    def _review_params(self, record: MemoryRecord, principal: Principal) -> dict[str, Any]:
        return {
            "ns": self.ns,
            "scopes": [record.scope],
            "id": record.id,
            "principal": str(principal),
            "at": self.clock(),
        }
