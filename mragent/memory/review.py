"""Human review of agent-written memories, and which agents are trusted.

Review, trust and purge are for humans only, checked here so that every surface
(the command line, the Python facade, the MCP server) inherits the rule. Review
needs a human principal other than the memory's writer; it decides three kinds
of things an agent did:

* a **pending memory**: accept it, or reject it (everything that depends on it,
  transitively, returns to pending);
* a **pending correction** of an accepted memory (an agent's correction never
  supersedes an accepted version by itself): accepting it supersedes the old
  version then; rejecting it leaves the old one standing;
* an **agent's forget**: accepting confirms it; rejecting restores the memory.

Only a human grants an agent trust, so that its new memories start accepted.

:class:`MemoryReview` is the writer's part that does it
(:class:`~mragent.memory.writer.MemoryWriter`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mragent.core.errors import ConfigError, WriteRefused
from mragent.core.view import DEFAULT_SCOPE, validate_scope
from mragent.memory.forgetting import MemoryForgetting
from mragent.memory.ingest import prepare_write
from mragent.memory.principal import Principal
from mragent.memory.records import MemoryRecord
from mragent.memory.versions import MemoryVersions


class MemoryReview:
    """The review queue, accept and reject, and agent trust, for one namespace.

    Args:
        versions: The namespace's stored versions and write plumbing.
        forgetting: Confirms or undoes an agent's forget when a human reviews it.
    """

    def __init__(self, versions: MemoryVersions, forgetting: MemoryForgetting) -> None:
        self.versions, self.forgetting = versions, forgetting
        self.store, self.ns = versions.store, versions.ns

    def pending(
        self,
        scopes: Sequence[str] = (DEFAULT_SCOPE,),
        limit: int = 100,
        *,
        principal: Principal | None = None,
    ) -> list[dict]:
        """The review queue: current pending versions, oldest first (``corrects``: the
        accepted versions a pending correction would supersede)."""
        for scope in scopes:
            validate_scope(scope)
        if principal is not None:
            principal.check_read(scopes)
        return self.store.run(
            "memory_pending", {"ns": self.ns, "scopes": list(scopes), "limit": limit}
        )

    def accept(
        self, memory_id: str, *, principal: Principal, scope: str = DEFAULT_SCOPE
    ) -> MemoryRecord:
        """A human reviewer accepts a version written by someone else (or confirms an
        agent's forget of it)."""
        record = self._reviewable(memory_id, principal, scope)
        if record.forget_awaits_review:
            self.forgetting.confirm_forget(record, principal)
            return self.versions.get(memory_id, scope)
        self._refuse_stale(record)
        with self.versions.audited(
            principal,
            "accept",
            record.id,
            record.hash,
            record.hash,
            {"trust": [record.trust, "accepted"]},
        ):
            self.store.run("memory_accept", self._review_params(record, principal))
        return self.versions.get(memory_id, scope)

    def reject(
        self, memory_id: str, *, principal: Principal, scope: str = DEFAULT_SCOPE
    ) -> list[str]:
        """A human reviewer rejects a version (its dependents return to pending), or an
        agent's forget of it (the memory is restored).

        Returns:
            The ids demoted from accepted to pending (transitively); none for a forget.
        """
        record = self._reviewable(memory_id, principal, scope)
        if record.forget_awaits_review:
            self.forgetting.restore(record, principal)
            return []
        # The demotions happen in the same statement as the rejection, so the
        # record names the cascade rather than the ids it will reach.
        with self.versions.audited(
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
        principal.require_human("trust")
        if agent.kind != "agent":
            raise ConfigError(f"trust is granted to agents, not {agent}")
        space = prepare_write(self.store, self.ns, self.versions.embedder)
        current = set(space.get("trusted") or [])
        updated = sorted(current | {str(agent)} if trusted else current - {str(agent)})
        action_detail = {"agent": str(agent), "trusted": trusted}
        with self.versions.audited(principal, "trust", str(agent), None, None, action_detail):
            self.store.run("space_trust", {"ns": self.ns, "trusted": updated})
        return updated

    def _reviewable(self, memory_id: str, principal: Principal, scope: str) -> MemoryRecord:
        principal.require_human("review")
        principal.check_write(scope)
        record = self.versions.get(memory_id, scope)
        if record.principal == str(principal):
            raise WriteRefused(f"{principal} wrote memory {memory_id!r} and cannot review it")
        if record.forgotten and not record.forget_awaits_review:
            raise WriteRefused(f"memory {memory_id!r} was forgotten")
        return record

    def _refuse_stale(self, record: MemoryRecord) -> None:
        """Refuse to accept a pending correction whose old version was superseded since.

        A correction closes its old version in its own write (the same record time)
        unless it waits for review; an old version closed at another time was
        superseded by someone else meanwhile.
        """
        if record.trust != "pending" or not record.supersedes:
            return
        for old in self.versions.records(record.supersedes, record.scope):
            if old.superseded_at is not None and old.superseded_at != record.recorded_at:
                raise WriteRefused(
                    f"memory {record.id!r} corrects {old.id!r}, which was superseded since; "
                    "reject it, and correct the current version instead"
                )

    def _review_params(self, record: MemoryRecord, principal: Principal) -> dict[str, Any]:
        return {
            "ns": self.ns,
            "scopes": [record.scope],
            "id": record.id,
            "principal": str(principal),
            "at": self.versions.clock(),
        }
