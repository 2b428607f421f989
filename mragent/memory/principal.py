"""Principals: who writes, reviews and reads a memory, and the scopes they are granted.

Every write names a principal; there is no anonymous write path. A principal is
``kind:name`` with kind ``human``, ``agent`` or ``system``:

* ``human`` principals review and their memories are accepted on write;
* ``agent`` memories start pending unless the namespace trusts that agent;
* ``system`` principals are the tool itself (bench and dataset ingests).

A principal authenticated from the credentials file
(:mod:`mragent.memory.credentials`) carries its grants: the scopes it may read
and the scopes it may write. Without credentials (the single-user default) it
carries none, and every scope is open to it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from mragent.core.errors import AccessDenied, ConfigError, WriteRefused

KINDS = ("human", "agent", "system")
_PRINCIPAL = re.compile(r"(human|agent|system):([A-Za-z0-9_.@-]{1,64})")


@dataclass(frozen=True)
class Principal:
    """A validated ``kind:name``, with the scopes it is granted.

    Attributes:
        kind: ``human``, ``agent`` or ``system``.
        name: The name after the colon.
        read: Scopes it may read; None: every scope (no credentials configured).
        write: Scopes it may write; None: every scope.

    Two principals are equal when their ``kind:name`` is: grants describe a
    principal, they do not make another one.
    """

    kind: str
    name: str
    read: frozenset[str] | None = field(default=None, compare=False)
    write: frozenset[str] | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return f"{self.kind}:{self.name}"

    @property
    def is_human(self) -> bool:
        return self.kind == "human"

    @property
    def is_agent(self) -> bool:
        return self.kind == "agent"

    def writes_accepted(self, trusted_agents: list[str] | tuple[str, ...]) -> bool:
        """Whether a memory this principal writes starts accepted (else pending)."""
        return self.kind != "agent" or str(self) in trusted_agents

    def check_read(self, scopes: Iterable[str]) -> None:
        """Refuse to read a scope outside the read grants.

        Raises:
            AccessDenied: naming the scope and the grants.
        """
        _check(self, "read", scopes, self.read)

    def check_write(self, scope: str) -> None:
        """Refuse to write a scope outside the write grants.

        Raises:
            AccessDenied: naming the scope and the grants.
        """
        _check(self, "write", [scope], self.write)

    def require_human(self, action: str) -> None:
        """Refuse ``action`` (review, trust, purge...) to anyone but a human.

        Raises:
            WriteRefused: for an agent or system principal.
        """
        if not self.is_human:
            raise WriteRefused(f"{action} needs a human principal, not {self}")


def _check(
    principal: Principal, verb: str, scopes: Iterable[str], granted: frozenset[str] | None
) -> None:
    if granted is None:
        return
    for scope in scopes:
        if scope not in granted:
            allowed = ", ".join(sorted(granted)) or "none"
            raise AccessDenied(
                f"{principal} may not {verb} scope {scope!r} (granted to {verb}: {allowed})"
            )


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
