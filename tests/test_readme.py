"""The README's integration examples run as written.

Every fenced block the README precedes with ``<!-- tested: tests/test_readme.py -->``
is run here, in a fresh process with a fresh ``$MRAGENT_HOME``, so the examples
start the embedded FalkorDB as they would for a new user: Python blocks with the
interpreter, bash blocks with bash and this checkout's ``mragent`` first on the
path, and JSON blocks (hook configurations) are parsed and each command they
name is checked to be a real ``mragent`` command. A block that needs an absent
framework extra skips, unless ``MRAGENT_REQUIRE_BACKENDS`` names it. All blocks
share one home and run in README order, as a reader following the README would run
them (the trust example needs ``jq``, which ``scripts/test.sh`` installs).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mragent.cli import app
from mragent.core.store import embedded
from tests.conftest import REPO, optional_package

MARKER = "<!-- tested: tests/test_readme.py -->"
_BLOCK = re.compile(re.escape(MARKER) + r"\n```(\w+)\n(.*?)\n```", re.S)
# Which extra a block needs, by the framework it imports.
EXTRAS = {"langgraph": "langgraph", "langchain_core": "langchain"}


def readme_blocks() -> list[tuple[str, str]]:
    """(language, code) of every tested block, in README order."""
    return _BLOCK.findall((REPO / "README.md").read_text(encoding="utf-8"))


def test_the_readme_marks_its_integration_examples() -> None:
    languages = [language for language, _ in readme_blocks()]
    assert languages == ["bash", "python", "python", "python", "bash", "json"]
    assert (REPO / "README.md").read_text().count(MARKER) == len(languages)


@pytest.fixture
def clean_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """The environment an example runs in: a home of its own, whose embedded FalkorDB
    the examples start as a new user's would (and this fixture stops), and a bin
    directory whose ``mragent`` is this checkout's."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    launcher = bin_dir / "mragent"
    main = shlex.quote("from mragent.cli import main; main()")
    launcher.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -c {main} "$@"\n')
    launcher.chmod(0o755)
    home = tmp_path / "home"
    env = {
        **os.environ,
        "MRAGENT_HOME": str(home),
        "PYTHONPATH": str(REPO),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    env.pop("MRAGENT_DB", None)
    try:
        yield env
    finally:
        embedded.stop(home)


def _run(language: str, code: str, env: dict[str, str], cwd: Path) -> str:
    for module, extra in EXTRAS.items():
        if re.search(rf"^(from|import) {module}\b", code, re.M):
            optional_package(module, extra)
    command = (
        [sys.executable, "-c", code]
        if language == "python"
        else ["bash", "-euo", "pipefail", "-c", code]
    )
    done = subprocess.run(
        command, env=env, cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, f"{language} example failed:\n{code}\n{done.stderr}"
    return done.stdout


def test_the_examples_run_as_written(clean_env: dict[str, str], tmp_path: Path) -> None:
    """One home, README order: each example finds the memory the ones before it left
    (the trust example forgets what it wrote; the Python one must not re-remember it)."""
    outputs = [
        _run(language, code, clean_env, tmp_path)
        for language, code in readme_blocks()
        if language in ("python", "bash")
    ]
    trust, python, langgraph, langchain, hooks = outputs
    # The trust example's recalls, in order: nothing yet (pending), Oslo with pending
    # read, Bergen once corrected, Oslo as of before; then the log verifies.
    answers = [line for line in trust.splitlines() if line in ("(no answer)", "Oslo", "Bergen")]
    assert answers == ["(no answer)", "Oslo", "Bergen", "Oslo"], trust
    assert "forgot 2 version(s)" in trust and ", intact;" in trust
    assert "02:00" in python, python
    assert langgraph.strip() == "['Ana writes code in the Helix editor.']"
    assert "[accepted, ops wiki] The staging database listens on port 5433." in langchain
    assert "Question: Which port does the staging database listen on?" in langchain
    remembered, *recalled = hooks.strip().splitlines()
    assert remembered.startswith("mragent remembered ") and "(pending)" in remembered
    assert "Now bump the version" not in hooks.split("\n", 1)[0]  # only the marked line
    kept = "agent:scout hook] Releases are cut on Thursdays."
    assert any(line.endswith(kept) for line in recalled)


def test_the_hook_configuration_names_real_commands() -> None:
    (config,) = [json.loads(code) for language, code in readme_blocks() if language == "json"]
    commands = [
        hook["command"] for entry in config["hooks"]["UserPromptSubmit"] for hook in entry["hooks"]
    ]
    assert [c.split()[:3] for c in commands] == [
        ["mragent", "hook", "remember"],
        ["mragent", "hook", "recall"],
    ]
    runner = CliRunner()
    for command in commands:
        args = shlex.split(command)[1:]
        result = runner.invoke(app, [*args, "--help"])
        assert result.exit_code == 0, result.output
