"""Scopes and read views: what one reconstruction is allowed to see.

Every memory node carries a ``scope`` besides its namespace; every query that
touches memories filters on the scopes of a :class:`ReadView` (see the
``// scope:`` convention in ``cypher/``). A view also fixes which trust states
count, and the record time the memory is read at (``as_of``), so
``recall --as-of T`` reconstructs what was believed at ``T``.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

from mragent.core.errors import ConfigError
from mragent.core.times import check_time

DEFAULT_SCOPE = "shared"
PENDING_WEIGHT = 0.5  # evidence kept by a pending memory when pending ones are read
_SCOPE = re.compile(r"[a-z0-9][a-z0-9_.:@-]{0,63}")


def validate_scope(scope: str, option: str = "--scope") -> str:
    """Return ``scope`` if well formed.

    Raises:
        ConfigError: naming the option and the accepted form.
    """
    # fullmatch: `$` would also match before a trailing newline.
    if not isinstance(scope, str) or not _SCOPE.fullmatch(scope):
        raise ConfigError(
            f"{option} {scope!r}: a scope is 1-64 of lowercase letters, digits and _.:@- "
            "starting with a letter or digit"
        )
    return scope


@dataclass(frozen=True)
class ReadView:
    """The slice of a namespace a reader sees.

    Attributes:
        scopes: Scopes read (every node outside them is invisible).
        include_pending: Read pending memories too, their evidence scaled by
            ``pending_weight``; accepted ones are always read, rejected never.
        as_of: Record time (epoch seconds) to read at: the versions current then, in
            the trust state each had then; None: now, at each query.
        pending_weight: Evidence multiplier for pending memories, in (0, 1].
    """

    scopes: tuple[str, ...] = (DEFAULT_SCOPE,)
    include_pending: bool = False
    as_of: float | None = None
    pending_weight: float = PENDING_WEIGHT

    def __post_init__(self) -> None:
        if not self.scopes:
            raise ConfigError("a read view needs at least one scope")
        for scope in self.scopes:
            validate_scope(scope)
        check_time(self.as_of, "as_of")
        if not 0.0 < self.pending_weight <= 1.0:
            raise ConfigError(f"pending weight {self.pending_weight} must be in (0, 1]")

    @property
    def trust(self) -> list[str]:
        """Trust states read."""
        return ["accepted", "pending"] if self.include_pending else ["accepted"]

    def params(self) -> dict[str, Any]:
        """The ``$scopes``, ``$trust`` and ``$as_of`` parameters of the view queries."""
        as_of = time.time() if self.as_of is None else self.as_of
        return {"scopes": list(self.scopes), "trust": self.trust, "as_of": as_of}
