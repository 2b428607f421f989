"""A human's session: review, trust and purge beside everything an agent may do.

None of these is on an agent's surface: :func:`~mragent.facade.open.open_memory`
hands an agent a plain :class:`~mragent.facade.session.MemorySession`, the MCP
server serves none of them (:mod:`mragent.mcp_server.catalog` declares them
human-only), and this session and the memory layer refuse them to any principal
but a human whatever object asks.
"""

from __future__ import annotations

from collections.abc import Sequence

from mragent.facade import arguments as arg
from mragent.facade.results import Forgotten
from mragent.facade.session import MemorySession
from mragent.memory.principal import Principal, parse_principal
from mragent.memory.records import MemoryRecord


class ReviewSession(MemorySession):
    """A human's session: everything an agent's has, plus review, trust and purge."""

    def pending(self, *, scopes: Sequence[str] | None = None, limit: int = 100) -> list[dict]:
        """Pending memories and pending corrections, oldest first."""
        principal = self._human("review")
        with self._lock:
            return self._memories.pending(
                arg.names(scopes, "scopes") or self.read_scopes, limit, principal=principal
            )

    def agent_forgets(self, *, scopes: Sequence[str] | None = None, limit: int = 100) -> list[dict]:
        """Memories agents forgot, awaiting a human's confirmation or restore."""
        principal = self._human("review")
        with self._lock:
            return self._memories.agent_forgets(
                arg.names(scopes, "scopes") or self.read_scopes, limit, principal=principal
            )

    def accept(self, memory_id: str, *, scope: str | None = None) -> MemoryRecord:
        """Accept a version someone else wrote (or confirm an agent's forget of it)."""
        with self._lock:
            return self._memories.accept(
                arg.text(memory_id, "memory_id"), principal=self._writer(), scope=self._scope(scope)
            )

    def reject(self, memory_id: str, *, scope: str | None = None) -> list[str]:
        """Reject a version (its dependents return to pending) or an agent's forget
        (the memory is restored); returns the ids demoted."""
        with self._lock:
            return self._memories.reject(
                arg.text(memory_id, "memory_id"), principal=self._writer(), scope=self._scope(scope)
            )

    def trust(self, agent: str | Principal, *, trusted: bool = True) -> list[str]:
        """Let an agent's new memories start accepted (or stop it); the trusted agents."""
        target = agent if isinstance(agent, Principal) else parse_principal(agent, "agent")
        with self._lock:
            return self._memories.set_trust(target, principal=self._writer(), trusted=trusted)

    def purge(self, memory_id: str, *, reason: str, scope: str | None = None) -> Forgotten:
        """Forget a memory and erase its text (the hash stays); cannot be undone."""
        with self._lock:
            ids = self._memories.purge(
                arg.text(memory_id, "memory_id"),
                principal=self._writer(),
                reason=arg.text(reason, "reason"),
                scope=self._scope(scope),
            )
        return Forgotten(ids=ids)

    def _human(self, action: str) -> Principal | None:
        """The principal, refused unless a human (None: the implicit local human,
        who reads the queues without credentials configured)."""
        principal = self.principal
        if principal is not None:
            principal.require_human(action)
        return principal
