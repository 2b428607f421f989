"""``mragent principal add|list|revoke``: who may use the memory, and with which grants.

Humans only: with credentials configured, the caller must be the human bound to
the OS account running the command (an agent presenting a token is refused).
The first principal added is that human, bound to the OS account adding it, so
the file never starts without someone who can manage it. A new agent's token is
printed once (or written to a 0600 key file) and never stored.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from mragent.cli.common import JsonOption, cli_errors, emit_json, say
from mragent.core.errors import ConfigError, WriteRefused
from mragent.core.view import DEFAULT_SCOPE
from mragent.memory.auth import authenticate
from mragent.memory.credentials import Credentials, credentials_path, editing, os_user
from mragent.memory.principal import Principal, parse_principal

principal_app = typer.Typer(
    help="Manage principals and their grants (the credentials file).", no_args_is_help=True
)

PrincipalArgument = Annotated[str, typer.Argument(help="human:NAME or agent:NAME.")]
ReadGrants = Annotated[
    list[str] | None,
    typer.Option("--read", help="A scope it may read; repeatable (default: shared)."),
]
WriteGrants = Annotated[
    list[str] | None,
    typer.Option("--write", help="A scope it may write; repeatable (default: shared)."),
]


def _require_manager(creds: Credentials) -> Principal | None:
    """The human managing the file; None while it has no principal yet (the bootstrap)."""
    if not creds.entries:
        return None
    who = authenticate(None, credentials=creds.path)
    assert who is not None
    who.require_human("managing principals")
    return who


@principal_app.command("add")
def add_command(
    principal: PrincipalArgument,
    os_account: Annotated[
        str | None,
        typer.Option("--os-user", help="For a human: the OS account it is (default: yours)."),
    ] = None,
    read: ReadGrants = None,
    write: WriteGrants = None,
    token_file: Annotated[
        Path | None,
        typer.Option(
            "--token-file",
            help="For an agent: write its token to this new 0600 key file instead of "
            "printing it ($MRAGENT_TOKEN_FILE reads it).",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Add a human (bound to an OS account) or an agent (given a token, shown once)."""
    with cli_errors():
        target = parse_principal(principal, "PRINCIPAL")
        account = os_account or (os_user() if target.is_human else None)
        with editing() as creds:
            if _require_manager(creds) is None and not (target.is_human and account == os_user()):
                raise ConfigError(
                    f"{creds.path} has no principal yet: add yourself first "
                    f"(mragent principal add human:NAME, bound to OS user {os_user()!r})"
                )
            token = creds.add(
                target, read=read or [DEFAULT_SCOPE], write=write or [DEFAULT_SCOPE], user=account
            )
            if token is not None and token_file is not None:
                _write_key_file(token_file, token)
        entry = creds.entries[str(target)]
        shown = token if token_file is None else None
        if as_json:
            emit_json({**_describe(entry.model_dump()), "token": shown, "token_file": token_file})
        elif token is None:
            say(f"added {target} (OS user {account}); {_grants(entry.read, entry.write)}")
        elif shown is None:
            say(f"added {target}; its token is in {token_file}; {_grants(entry.read, entry.write)}")
        else:
            say(f"added {target}; {_grants(entry.read, entry.write)}; its token (shown once):")
            say(token)


@principal_app.command("list")
def list_command(as_json: JsonOption = False) -> None:
    """List the principals, their credentials and grants."""
    with cli_errors():
        creds = Credentials.load()
        if creds is None:
            raise ConfigError(
                f"no credentials are configured ({credentials_path()} does not exist): "
                "the single-user default takes principals as named"
            )
        _require_manager(creds)
        rows = [_describe(entry.model_dump()) for entry in creds.entries.values()]
        if as_json:
            emit_json({"file": str(creds.path), "principals": rows})
            return
        for row in rows:
            say(f"{row['principal']}  {row['credential']}  {_grants(row['read'], row['write'])}")


@principal_app.command("revoke")
def revoke_command(principal: PrincipalArgument, as_json: JsonOption = False) -> None:
    """Remove a principal: its token or OS account authenticates no one afterwards."""
    with cli_errors():
        target = parse_principal(principal, "PRINCIPAL")
        with editing() as creds:
            manager = _require_manager(creds)
            if manager == target:
                raise WriteRefused(f"{target} cannot revoke itself (another human can)")
            creds.revoke(target)
        if as_json:
            emit_json({"revoked": str(target)})
        else:
            say(f"revoked {target}")


def _describe(entry: dict) -> dict:
    credential = f"OS user {entry['os_user']}" if entry.get("os_user") else "token"
    created = datetime.fromtimestamp(entry["created_at"], UTC).isoformat()
    return {
        "principal": entry["principal"],
        "credential": credential,
        "read": entry["read"],
        "write": entry["write"],
        "created": created,
    }


def _grants(read: list[str], write: list[str]) -> str:
    return f"reads {', '.join(read) or 'nothing'}; writes {', '.join(write) or 'nothing'}"


def _write_key_file(path: Path, token: str) -> None:
    """A new key file holding ``token``, mode 0600 (never overwrites one)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise ConfigError(f"--token-file {path} exists; choose a new file") from None
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
