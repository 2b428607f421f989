"""The root command lists every sub-command from its summary and loads one only to run it."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from mragent.cli import app
from mragent.cli.commands import COMMANDS, load_command


def _first_paragraph(text: str) -> str:
    return " ".join(text.strip().split("\n\n")[0].split())


@pytest.mark.parametrize("name", list(COMMANDS))
def test_summary_is_the_commands_own_help(name: str) -> None:
    command = load_command(name)
    assert command.name == name
    assert _first_paragraph(command.help or "") == " ".join(COMMANDS[name].summary.split())


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_answers_its_help(name: str) -> None:
    done = CliRunner().invoke(app, [name, "--help"], env={"COLUMNS": "200"})
    assert done.exit_code == 0, done.output
    assert f"mragent {name}" in done.output
    assert "--install-completion" not in done.output


def test_root_help_lists_every_command_with_its_summary() -> None:
    done = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "400"})
    assert done.exit_code == 0
    listed = re.findall(r"│ (\w+) +(.+?) +│", done.output)
    assert [name for name, _ in listed if name in COMMANDS] == list(COMMANDS)


def test_an_unknown_command_is_refused() -> None:
    done = CliRunner().invoke(app, ["nosuch"])
    assert done.exit_code == 2
    assert "No such command 'nosuch'" in done.output
