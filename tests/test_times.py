"""Time values are checked in one place before anything is stored or sent: text
that is no time, nan, inf and 1e400 are one line naming the option, and a value
stored before the check (``valid_from="soon"``) leaves the memory reviewable,
forgettable, purgeable and exportable."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mragent import open_memory
from mragent.cli import app
from mragent.core.errors import ConfigError
from mragent.core.store import open_store
from mragent.core.store.base import GraphStore
from mragent.core.times import check_time, parse_time
from mragent.core.view import ReadView
from mragent.memory.ingest import namespace_stats

runner = CliRunner()
BAD_TEXT = ("soon", "nan", "inf", "-inf", "1e400", "99999-01-01")
BAD_NUMBERS: tuple[object, ...] = ("soon", float("nan"), float("inf"), 10**400, True, 1e300)


@pytest.fixture
def falkor(falkordb_url: str) -> Iterator[tuple[GraphStore, str]]:
    name = f"t-time-{uuid.uuid4().hex[:10]}"
    with open_store(falkordb_url) as store:
        yield store, name
        store.run("delete_namespace", {"ns": name})


@pytest.mark.parametrize("text", BAD_TEXT)
def test_text_that_is_no_finite_time_is_refused_naming_the_option(text: str) -> None:
    with pytest.raises(ConfigError, match="--as-of"):
        parse_time(text, "--as-of")


@pytest.mark.parametrize("value", BAD_NUMBERS)
def test_a_number_that_is_no_finite_time_is_refused_naming_the_argument(value: object) -> None:
    with pytest.raises(ConfigError, match="valid_from"):
        check_time(value, "valid_from")
    with pytest.raises(ConfigError, match="as_of"):
        ReadView(as_of=value)  # type: ignore[arg-type]


def test_good_times_pass() -> None:
    assert parse_time("2026-11-30", "--as-of") == 1_795_996_800.0
    assert parse_time("1700000000", "--as-of") == 1_700_000_000.0
    assert check_time(1_700_000_000, "valid_from") == 1_700_000_000.0


@pytest.mark.parametrize("value", ["soon", float("nan"), float("inf"), float("1e400")])
def test_facade_refuses_a_bad_valid_time_and_writes_nothing(
    falkor: tuple[GraphStore, str], agent_token: str, audit_log_path: Path, value: object
) -> None:
    store, ns = falkor
    with open_memory(ns, token=agent_token, store=store) as memory:
        with pytest.raises(ConfigError, match="valid_from"):
            memory.remember("The Vega ferry sails at nine.", valid_from=value)  # type: ignore[arg-type]
        with pytest.raises(ConfigError, match="valid_to"):
            memory.remember("The Vega ferry sails at nine.", valid_to=value)  # type: ignore[arg-type]
    assert not audit_log_path.exists() or audit_log_path.read_text() == ""
    assert namespace_stats(store, ns).get("contents", 0) == 0


@pytest.mark.parametrize(
    "args",
    [
        ["remember", "The Vega ferry sails at nine.", "--valid-from", "inf"],
        ["remember", "The Vega ferry sails at nine.", "--valid-to", "1e400"],
        ["recall", "When does the ferry sail?", "--as-of", "nan"],
        ["explain", "When does the ferry sail?", "--as-of", "inf"],
    ],
)
def test_cli_refuses_a_bad_time_in_one_line_and_logs_nothing(
    falkordb_url: str, audit_log_path: Path, args: list[str]
) -> None:
    ns = f"t-time-{uuid.uuid4().hex[:10]}"
    result = runner.invoke(
        app, [*args, "--ns", ns, "--db", falkordb_url, "--principal", "human:ana"]
    )
    assert result.exit_code == 2, result.output
    message = result.stderr.strip()
    assert len(message.splitlines()) == 1 and args[2] in message
    assert not audit_log_path.exists() or audit_log_path.read_text() == ""


def test_a_stored_bad_valid_time_does_not_lock_the_memory(
    falkor: tuple[GraphStore, str], tmp_path: Path
) -> None:
    store, ns = falkor
    common = ["--ns", ns, "--db", store.secret_url]
    done = runner.invoke(
        app, ["remember", "The Vega ferry sails at nine.", "--principal", "agent:bot",
              "--json", *common],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    memory = json.loads(done.stdout)["id"]
    # What a facade call stored before times were checked.
    tamper = "MATCH (m:Content {id: $id}) SET m.valid_from = 'soon'"
    store._execute("tamper", tamper, {"id": memory})
    human = ["--principal", "human:ana"]
    for args in (
        ["history", memory],
        ["review", "list"],
        ["recall", "When does the Vega ferry sail?", "--include-pending"],
        ["export", str(tmp_path / "out.json")],
        ["review", "accept", memory, *human],
        ["forget", memory, "--reason", "stale", *human],
        ["purge", memory, "--reason", "stale", *human],
    ):
        result = runner.invoke(app, [*args, *common])
        assert result.exit_code == 0, (args, result.output)
        assert "Traceback" not in result.output and "validation error" not in result.output
    exported = json.loads((tmp_path / "out.json").read_text())
    assert exported["memories"][0]["valid_from"] is None
