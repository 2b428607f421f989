"""The credentials file: principals bound to something they hold, not a name they claim.

One JSON file (``$MRAGENT_CREDENTIALS``, default ``credentials.json`` under the
mragent home), mode 0600, owned by the OS user running mragent. Each entry is a
principal with the scopes it may read and write, and its credential:

* a **human** is the OS account that runs mragent (``os_user``); no password, no
  token: whoever runs as that OS user is that human;
* an **agent** holds a random token, shown once when it is added; the file keeps
  only its HMAC-SHA256 under a random per-file key, compared in constant time.

Tokens are 256 random bits, so a fast keyed hash is enough: there is no
password to guess, and a slow hash would cost every MCP request. Only humans
change the file (:mod:`mragent.cli.principal`); an agent token never maps to a
human, so an agent can never act as one.

A file that exists but cannot be trusted (unreadable, malformed, readable by
others, owned by someone else) refuses every caller: falling back to the
single-user default would let a damaged file turn authentication off.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import os
import pwd
import secrets
import stat
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mragent.core.errors import AccessDenied, ConfigError
from mragent.core.files import PRIVATE, write_bytes_atomic
from mragent.core.paths import default_home
from mragent.core.view import validate_scope
from mragent.memory.principal import Principal, parse_principal

FORMAT: Literal["mragent-credentials/1"] = "mragent-credentials/1"
TOKEN_PREFIX = "mrg_"
_TOKEN_BYTES = 32


def credentials_path() -> Path:
    """``$MRAGENT_CREDENTIALS``, else ``credentials.json`` under the mragent home."""
    override = os.environ.get("MRAGENT_CREDENTIALS")
    return Path(override).resolve() if override else default_home() / "credentials.json"


def file_stamp(path: Path) -> tuple[int, int, int] | None:
    """What tells one state of the credentials file from the next (modification time,
    inode, size), None when it is missing: :meth:`Credentials.save` renames a new file
    into place, so every change shows, and a stat costs far less than a re-read."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_ino, info.st_size


def os_user() -> str:
    """The OS account running this process, from its effective uid (never from
    ``$USER``, which the process could set to anything)."""
    return pwd.getpwuid(os.geteuid()).pw_name


class Entry(BaseModel):
    """One principal in the file, with its grants and its credential."""

    # Built when a credentials file is first read: most processes never read one.
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    principal: str
    read: list[str]
    write: list[str]
    os_user: str | None = None
    token_hmac: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    created_at: float

    def as_principal(self) -> Principal:
        """The principal with its grants."""
        bare = parse_principal(self.principal, "principal")
        return Principal(bare.kind, bare.name, frozenset(self.read), frozenset(self.write))


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    format: Literal["mragent-credentials/1"]
    key: str = Field(pattern=r"^[0-9a-f]{64}$")
    principals: list[Entry]


class Credentials:
    """The principals of one credentials file.

    Build with :meth:`load` (an existing file) or :meth:`create` (a new one).
    """

    def __init__(self, path: Path, key: bytes, entries: Sequence[Entry]) -> None:
        self.path = path
        self._key = key
        self.entries = {entry.principal: entry for entry in entries}

    @classmethod
    def load(cls, path: Path | None = None) -> Credentials | None:
        """The credentials at ``path`` (default :func:`credentials_path`); None when the
        file does not exist (the single-user default).

        Raises:
            AccessDenied: when the file is readable by others or not the caller's.
            ConfigError: when it is malformed, naming the file.
        """
        path = path or credentials_path()
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise AccessDenied(f"{path}: cannot read the credentials ({exc.strerror})") from None
        with os.fdopen(fd, "rb") as handle:
            _check_private(path, os.fstat(handle.fileno()))
            raw = handle.read()
        try:
            data = _File.model_validate_json(raw)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "file"
            raise ConfigError(f"{path}: not a credentials file ({where}: {first['msg']})") from None
        return cls(path, bytes.fromhex(data.key), data.principals)

    @classmethod
    def create(cls, path: Path | None = None) -> Credentials:
        """New, empty credentials with a fresh key (written by :meth:`save`)."""
        return cls(path or credentials_path(), secrets.token_bytes(32), [])

    # -- authentication ----------------------------------------------------------------

    def by_token(self, token: str) -> Principal | None:
        """The agent holding ``token``, or None. Every entry is compared, in
        constant time, whatever matches first."""
        digest = self._digest(token)
        found: Entry | None = None
        for entry in self.entries.values():
            if entry.token_hmac is not None and hmac.compare_digest(entry.token_hmac, digest):
                found = entry
        return found.as_principal() if found else None

    def by_os_user(self, user: str) -> Principal | None:
        """The human configured for OS account ``user``, or None."""
        for entry in self.entries.values():
            if entry.os_user == user:
                return entry.as_principal()
        return None

    # -- changes (humans only: see mragent.cli.principal) --------------------------------

    def add(
        self,
        principal: Principal,
        *,
        read: Sequence[str],
        write: Sequence[str],
        user: str | None = None,
    ) -> str | None:
        """Add a principal: a human bound to OS account ``user``, or an agent given
        a new token.

        Returns:
            The agent's token (shown once, never stored), or None for a human.

        Raises:
            ConfigError: for a principal already present, a system principal, a
                human without an OS account or one already taken, a bad scope.
        """
        if str(principal) in self.entries:
            raise ConfigError(f"{principal} is already in {self.path} (revoke it first)")
        for scope in (*read, *write):
            validate_scope(scope)
        entry = {"principal": str(principal), "read": sorted(set(read)),
                 "write": sorted(set(write)), "created_at": time.time()}  # fmt: skip
        token = None
        if principal.is_human:
            if not user:
                raise ConfigError(f"{principal}: a human is bound to an OS account (--os-user)")
            taken = self.by_os_user(user)
            if taken is not None:
                raise ConfigError(f"OS user {user!r} is already {taken} in {self.path}")
            entry["os_user"] = user
        elif principal.is_agent:
            token = TOKEN_PREFIX + secrets.token_urlsafe(_TOKEN_BYTES)
            entry["token_hmac"] = self._digest(token)
        else:
            raise ConfigError(f"{principal}: only human and agent principals hold credentials")
        self.entries[str(principal)] = Entry.model_validate(entry)
        return token

    def revoke(self, principal: Principal) -> None:
        """Remove a principal: its token or OS account authenticates no one after this.

        Raises:
            ConfigError: when it is not in the file.
        """
        if self.entries.pop(str(principal), None) is None:
            raise ConfigError(f"{principal} is not in {self.path}")

    def save(self) -> None:
        """Write the file atomically and durably, mode 0600 from its creation on."""
        body = _File(format=FORMAT, key=self._key.hex(), principals=list(self.entries.values()))
        data = json.dumps(body.model_dump(mode="json"), indent=2).encode() + b"\n"
        write_bytes_atomic(self.path, data, mode=PRIVATE)

    def _digest(self, token: str) -> str:
        return hmac.new(self._key, token.encode(), hashlib.sha256).hexdigest()


@contextmanager
def editing(path: Path | None = None) -> Iterator[Credentials]:
    """Load (or start) the credentials under an exclusive lock and save them on exit,
    so two concurrent ``principal add`` runs cannot lose one another's change."""
    path = path or credentials_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            credentials = Credentials.load(path) or Credentials.create(path)
            yield credentials
            credentials.save()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _check_private(path: Path, info: os.stat_result) -> None:
    """Refuse a file others could read or change, or one another account owns."""
    if info.st_uid != os.geteuid():
        raise AccessDenied(f"{path}: the credentials file belongs to another OS user")
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise AccessDenied(
            f"{path}: the credentials file is open to others (mode "
            f"{stat.S_IMODE(info.st_mode):04o}); run chmod 600 on it"
        )
