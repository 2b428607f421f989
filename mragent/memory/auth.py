"""Who is calling: the principal a credential proves, checked against the one claimed.

:func:`authenticate` is the one door every surface uses (the command line, the
Python facade, the MCP server over stdio):

* **No credentials file** (the single-user default): one implicit local human.
  A claimed principal (``--principal``, ``$MRAGENT_PRINCIPAL``, ``principal=``)
  is taken as given, exactly as before credentials existed; a read without one
  reads as the local human, every scope open. The OS account is the only boundary.
* **Credentials configured**: an agent proves itself with its token (``token=``,
  ``$MRAGENT_TOKEN`` or the 0600 key file named by ``$MRAGENT_TOKEN_FILE``); without
  a token, the OS account running the process must be a configured human. A
  claimed principal that differs from the proven one is refused, as is a token
  that matches no one. The principal returned carries its grants.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from mragent.core.errors import AccessDenied, ConfigError
from mragent.memory.credentials import Credentials, credentials_path, file_stamp, os_user
from mragent.memory.principal import Principal, parse_principal


def presented_token(token: str | None = None) -> str | None:
    """The token a caller presents: ``token``, else ``$MRAGENT_TOKEN``, else the
    contents of ``$MRAGENT_TOKEN_FILE``; None when there is none.

    Raises:
        AccessDenied: when the key file is open to others or unreadable.
    """
    if token is not None:
        return _nonblank(token, "token=")
    if os.environ.get("MRAGENT_TOKEN"):
        return _nonblank(os.environ["MRAGENT_TOKEN"], "$MRAGENT_TOKEN")
    key_file = os.environ.get("MRAGENT_TOKEN_FILE")
    if not key_file:
        return None
    path = Path(key_file)
    try:
        info = path.stat()
        if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise AccessDenied(
                f"{path}: the key file is open to others (mode {stat.S_IMODE(info.st_mode):04o}); "
                "run chmod 600 on it"
            )
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise AccessDenied(f"{path}: cannot read the key file ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise AccessDenied(f"{path}: the key file is not UTF-8 text") from None
    return _nonblank(text, f"the key file {path}")


def _nonblank(token: str, where: str) -> str:
    """A presented token, stripped; a blank one is refused rather than read as no
    token at all (which would make the caller the OS account's human)."""
    if not isinstance(token, str) or not token.strip():
        raise AccessDenied(f"{where} is empty: present the agent's token, or none at all")
    return token.strip()


def authenticate(
    claimed: str | None,
    *,
    token: str | None = None,
    credentials: Path | None = None,
    required: bool = True,
    option: str = "--principal",
) -> Principal | None:
    """The principal this caller is.

    Args:
        claimed: The principal the caller names (may be None).
        token: A token given directly (else the environment is asked).
        credentials: The credentials file (default: :func:`credentials_path`).
        required: Without credentials and without a claim, raise (a write) rather
            than return None (a read as the implicit local human).
        option: How the caller names the claim, for messages.

    Raises:
        ConfigError: a malformed claim, or no claim where one is required.
        AccessDenied: a token matching no one, an OS account that is no configured
            human, a claim other than the proven principal, a token without
            credentials to check it against.
    """
    path = credentials or credentials_path()
    store = Credentials.load(path)
    presented = presented_token(token)
    if store is None:
        if presented:
            raise AccessDenied(
                f"a token was presented but no credentials are configured ({path} does not "
                "exist): nothing can check it"
            )
        if claimed is None and not required:
            return None
        return parse_principal(claimed, option)
    if presented:
        proven = store.by_token(presented)
        if proven is None:
            raise AccessDenied(f"the token matches no principal in {store.path} (revoked?)")
    else:
        user = os_user()
        proven = store.by_os_user(user)
        if proven is None:
            raise AccessDenied(
                f"OS user {user!r} is no principal in {store.path}: a human is added with "
                f"'mragent principal add human:NAME --os-user {user}', an agent presents "
                "its token ($MRAGENT_TOKEN)"
            )
    if claimed is not None and claimed != str(proven):
        try:
            named = str(parse_principal(claimed, option))
        except ConfigError:
            named = repr(claimed)
        raise AccessDenied(f"{option} {named} is not the authenticated principal {proven}")
    return proven


class Standing:
    """A caller authenticated once and checked again whenever the credentials file
    changes, so a revoked principal (or a grant taken away) stops working from the
    caller's next call, in a process that authenticated it long before.

    Checking costs a ``stat`` of the file while it is unchanged; a change re-runs
    :func:`authenticate` with what the caller presented the first time, and must
    prove the same principal.

    Args:
        claimed, token, credentials, required, option: As for :func:`authenticate`.

    Raises:
        AccessDenied, ConfigError: as :func:`authenticate`, now and on every
            :meth:`current` after a change that no longer proves the principal.
    """

    def __init__(
        self,
        claimed: str | None,
        *,
        token: str | None = None,
        credentials: Path | None = None,
        required: bool = True,
        option: str = "--principal",
    ) -> None:
        self._path = credentials or credentials_path()
        self._token = presented_token(token)
        self._required, self._option = required, option
        self._stamp = file_stamp(self._path)
        self.principal = authenticate(
            claimed, token=self._token, credentials=self._path, required=required, option=option
        )

    def current(self) -> Principal | None:
        """The principal as the credentials file proves it now.

        Raises:
            AccessDenied: when the file no longer proves the principal (revoked,
                its token changed, the file removed or made unreadable).
        """
        stamp = file_stamp(self._path)
        if stamp != self._stamp:
            claimed = str(self.principal) if self.principal is not None else None
            # The stamp is taken before the file is read: a change in between is
            # seen again by the next call rather than missed.
            self.principal = authenticate(
                claimed, token=self._token, credentials=self._path,
                required=self._required, option=self._option,
            )  # fmt: skip
            self._stamp = stamp
        return self.principal
