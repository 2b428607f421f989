"""Credentials and authentication: principals are proven, not claimed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mragent.core.errors import AccessDenied, ConfigError
from mragent.memory.auth import authenticate
from mragent.memory.credentials import Credentials, editing, os_user
from mragent.memory.principal import Principal

ANA = Principal("human", "ana")
SCOUT = Principal("agent", "scout")


def _configure(path: Path) -> str:
    """A file with the OS user as human:ana and agent:scout; returns the agent's token."""
    with editing(path) as creds:
        creds.add(ANA, read=["shared", "hr"], write=["shared"], user=os_user())
        token = creds.add(SCOUT, read=["shared"], write=["shared"])
    assert token is not None
    return token


def test_the_file_is_private_and_keeps_no_token(credentials_path: Path) -> None:
    token = _configure(credentials_path)
    assert token.startswith("mrg_") and len(token) > 40
    assert credentials_path.stat().st_mode & 0o777 == 0o600
    text = credentials_path.read_text()
    assert token not in text and token[4:] not in text
    stored = json.loads(text)
    assert {e["principal"] for e in stored["principals"]} == {"human:ana", "agent:scout"}
    loaded = Credentials.load(credentials_path)
    assert loaded is not None
    found = loaded.by_token(token)
    assert found == SCOUT and found is not None and found.write == frozenset({"shared"})
    assert loaded.by_token(token + "x") is None and loaded.by_token("") is None
    human = loaded.by_os_user(os_user())
    assert human == ANA and human is not None and human.read == frozenset({"shared", "hr"})


def test_a_file_open_to_others_or_malformed_refuses_everyone(credentials_path: Path) -> None:
    _configure(credentials_path)
    os.chmod(credentials_path, 0o644)
    with pytest.raises(AccessDenied, match="open to others"):
        authenticate("human:ana")
    os.chmod(credentials_path, 0o600)
    credentials_path.write_text('{"format": "mragent-credentials/1"}')
    with pytest.raises(ConfigError, match="not a credentials file"):
        authenticate("human:ana")  # never the single-user default instead


def test_without_credentials_a_claim_is_taken_as_given(credentials_path: Path) -> None:
    assert not credentials_path.exists()
    claimed = authenticate("agent:scout")
    assert claimed == SCOUT and claimed is not None and claimed.read is None
    assert authenticate(None, required=False) is None  # the implicit local human reads
    with pytest.raises(ConfigError, match="--principal is required"):
        authenticate(None)
    with pytest.raises(AccessDenied, match="no credentials are configured"):
        authenticate(None, token="mrg_anything")


def test_with_credentials_the_os_user_is_the_human(credentials_path: Path) -> None:
    _configure(credentials_path)
    assert authenticate(None) == ANA
    assert authenticate("human:ana") == ANA
    with pytest.raises(AccessDenied, match="not the authenticated principal human:ana"):
        authenticate("human:bob")
    with pytest.raises(AccessDenied, match="not the authenticated principal human:ana"):
        authenticate("agent:scout")  # claiming to be the agent without its token


def test_a_token_proves_an_agent_and_never_a_human(
    credentials_path: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    token = _configure(credentials_path)
    assert authenticate(None, token=token) == SCOUT
    monkeypatch.setenv("MRAGENT_TOKEN", token)
    assert authenticate("agent:scout") == SCOUT
    with pytest.raises(AccessDenied, match="not the authenticated principal agent:scout"):
        authenticate("human:ana")  # the OS user is ana, but a token was presented
    monkeypatch.setenv("MRAGENT_TOKEN", "mrg_wrong")
    with pytest.raises(AccessDenied, match="matches no principal"):
        authenticate(None)
    monkeypatch.delenv("MRAGENT_TOKEN")
    key_file = tmp_path / "scout.key"
    key_file.write_text(token + "\n")
    os.chmod(key_file, 0o600)
    monkeypatch.setenv("MRAGENT_TOKEN_FILE", str(key_file))
    assert authenticate(None) == SCOUT
    os.chmod(key_file, 0o640)
    with pytest.raises(AccessDenied, match="key file is open to others"):
        authenticate(None)


def test_revoking_ends_a_token(credentials_path: Path) -> None:
    token = _configure(credentials_path)
    with editing(credentials_path) as creds:
        creds.revoke(SCOUT)
    with pytest.raises(AccessDenied, match="matches no principal"):
        authenticate(None, token=token)
    assert authenticate(None) == ANA


def test_adding_checks_the_principal(credentials_path: Path) -> None:
    creds = Credentials.create(credentials_path)
    creds.add(ANA, read=["shared"], write=["shared"], user="ana")
    with pytest.raises(ConfigError, match="already"):
        creds.add(ANA, read=["shared"], write=["shared"], user="ana2")
    with pytest.raises(ConfigError, match="already human:ana"):
        creds.add(Principal("human", "eve"), read=["shared"], write=["shared"], user="ana")
    with pytest.raises(ConfigError, match="OS account"):
        creds.add(Principal("human", "bob"), read=["shared"], write=["shared"])
    with pytest.raises(ConfigError, match="only human and agent"):
        creds.add(Principal("system", "x"), read=["shared"], write=["shared"])
    with pytest.raises(ConfigError, match="scope"):
        creds.add(SCOUT, read=["Bad Scope"], write=["shared"])
