"""Who runs a command: the ``--principal`` options and the principal they resolve to.

Every command asks :func:`mragent.memory.auth.authenticate`: without credentials
configured, the claimed principal is taken as given (a write needs one, a read
without one reads as the local user); with credentials, the OS user's human or
the agent whose token is presented, and a different claim is refused (exit 3).
"""

from __future__ import annotations

from typing import Annotated

import typer

from mragent.core.view import ReadView
from mragent.memory.auth import authenticate
from mragent.memory.principal import BENCH, Principal

_HOW = (
    "Without credentials configured it is taken as given; with credentials it must be the "
    "authenticated principal (the OS user's human, or the agent presenting "
    "$MRAGENT_TOKEN / $MRAGENT_TOKEN_FILE) and may be left out."
)

PrincipalOption = Annotated[
    str | None,
    typer.Option(
        "--principal",
        envvar="MRAGENT_PRINCIPAL",
        show_envvar=True,
        help="Who makes this change: human:NAME, agent:NAME or system:NAME (required "
        f"without credentials). {_HOW}",
    ),
]
ReaderOption = Annotated[
    str | None,
    typer.Option(
        "--principal",
        envvar="MRAGENT_PRINCIPAL",
        show_envvar=True,
        help=f"Who reads; its grants bound the scopes read. {_HOW}",
    ),
]


def writer(claimed: str | None) -> Principal:
    """The principal a write runs as.

    Raises:
        ConfigError: no principal without credentials; a malformed one.
        AccessDenied: a failed authentication or a claim other than the proven one.
    """
    found = authenticate(claimed, required=True)
    assert found is not None  # required=True returns a principal or raises
    return found


def reader(claimed: str | None) -> Principal | None:
    """The principal a read runs as; None for the local user without credentials."""
    return authenticate(claimed, required=False)


def granted_view(claimed: str | None, view: ReadView) -> ReadView:
    """``view`` once the reader is allowed every scope in it.

    Raises:
        AccessDenied: for a scope beyond the reader's grants.
    """
    who = reader(claimed)
    if who is not None:
        who.check_read(view.scopes)
    return view


def corpus_writer(claimed: str | None) -> Principal:
    """Who ingests the corpus ``bench``, ``evolve`` and ``explain`` derive a namespace
    from: the authenticated caller (its write grants apply, an agent's memories start
    pending), and ``system:bench`` only for the implicit local human (no credentials
    and no principal named), never for an agent or a named caller.

    Raises:
        AccessDenied: a failed authentication or a claim other than the proven one.
    """
    who = reader(claimed)
    return BENCH if who is None else who


def require_human(claimed: str | None, action: str) -> None:
    """Refuse ``action`` unless the caller is a human (or the implicit local human).

    Raises:
        WriteRefused: for an agent or system principal.
        AccessDenied: a failed authentication or a claim other than the proven one.
    """
    who = reader(claimed)
    if who is not None:
        who.require_human(action)
