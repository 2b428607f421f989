"""The facade's arguments, checked before they reach the memory.

Python does not check annotations, so a caller's ``recall(42)`` or
``scopes="shared"`` would otherwise surface as a numpy error from the embedder,
or a string read as six one-letter scopes. Each function returns the value in
the form the memory takes, or raises one
:class:`~mragent.core.errors.ArgumentError` line naming the argument.
"""

from __future__ import annotations

from collections.abc import Sequence

from mragent.core.errors import ArgumentError


def text(value: object, argument: str) -> str:
    """A question, memory text, id or reason: a string."""
    if not isinstance(value, str):
        raise ArgumentError(f"{argument} must be a string, got {type(value).__name__}")
    return value


def optional_text(value: object, argument: str) -> str | None:
    """A string or None (a scope, a title, a source)."""
    return None if value is None else text(value, argument)


def names(value: object, argument: str) -> tuple[str, ...]:
    """A list of names (scopes, ids): one string is one name, not its letters."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, Sequence):
        raise ArgumentError(
            f"{argument} must be a string or a list of strings, got {type(value).__name__}"
        )
    for i, item in enumerate(value):
        text(item, f"{argument}[{i}]")
    return tuple(value)


def optional_names(value: object, argument: str) -> tuple[str, ...] | None:
    """:func:`names`, keeping None (not given) apart from an empty list."""
    return None if value is None else names(value, argument)


def flag(value: object, argument: str) -> bool:
    """A true/false option (``include_pending``, ``readmit``): a bool, not a truthy value."""
    if not isinstance(value, bool):
        raise ArgumentError(f"{argument} must be True or False, got {type(value).__name__}")
    return value


def one_of(value: object, kinds: tuple[type, ...], argument: str) -> None:
    """Refuse ``value`` unless it is None or one of ``kinds``."""
    if value is not None and not isinstance(value, kinds):
        allowed = " or ".join(kind.__name__ for kind in kinds)
        raise ArgumentError(f"{argument} must be {allowed} or None, got {type(value).__name__}")
