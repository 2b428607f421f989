"""Principals: who writes, reviews and reads a memory.

Every write names a principal; there is no anonymous write path. A principal is
``kind:name`` with kind ``human``, ``agent`` or ``system``:

* ``human`` principals review and their memories are accepted on write;
* ``agent`` memories start pending unless the namespace trusts that agent;
* ``system`` principals are the tool itself (bench and dataset ingests).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mragent.core.errors import ConfigError

KINDS = ("human", "agent", "system")
_PRINCIPAL = re.compile(r"(human|agent|system):([A-Za-z0-9_.@-]{1,64})")


@dataclass(frozen=True)
class Principal:
    """A validated ``kind:name``."""

    kind: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}"

    @property
    def is_human(self) -> bool:
        return self.kind == "human"

    def writes_accepted(self, trusted_agents: list[str] | tuple[str, ...]) -> bool:
        """Whether a memory this principal writes starts accepted (else pending)."""
        return self.kind != "agent" or str(self) in trusted_agents


# Who writes the namespaces `bench`, `evolve` and `explain` derive from a corpus file.
BENCH = Principal("system", "bench")


def parse_principal(text: str | None, option: str = "--principal") -> Principal:
    """Validate a principal string.

    Raises:
        ConfigError: naming the option when it is missing or malformed.
    """
    if not text:
        raise ConfigError(f"{option} is required: every write names who makes it (e.g. human:ana)")
    match = _PRINCIPAL.fullmatch(text)  # `$` would also match before a trailing newline
    if not match:
        raise ConfigError(
            f"{option} {text!r}: expected kind:name with kind one of {', '.join(KINDS)} "
            "and name of 1-64 letters, digits or _.@-"
        )
    return Principal(match.group(1), match.group(2))
