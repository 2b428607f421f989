"""Inputs that are no regular file (a device that never ends, a FIFO that blocks
the open, a directory) are refused in one line before they are read, and pages
holding memory texts are written for their owner only."""

from __future__ import annotations

import os
import stat
import threading
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mragent.cli import app

runner = CliRunner()


def _within(seconds: float, args: list[str]) -> tuple[int, str]:
    """Run the command line, failing the test instead of hanging with it."""
    done: list[tuple[int, str]] = []
    worker = threading.Thread(
        target=lambda: done.append((lambda r: (r.exit_code, r.output))(runner.invoke(app, args))),
        daemon=True,
    )
    worker.start()
    worker.join(seconds)
    assert done, f"{args} still running after {seconds} s"
    return done[0]


@pytest.mark.parametrize("kind", ["device", "fifo", "directory"])
@pytest.mark.parametrize("command", ["ingest", "import"])
def test_an_input_that_is_no_regular_file_is_refused(
    falkordb_url: str, tmp_path: Path, kind: str, command: str
) -> None:
    if kind == "device":
        path = Path("/dev/zero")
    elif kind == "fifo":
        path = tmp_path / "pipe"
        os.mkfifo(path)
    else:
        path = tmp_path
    ns = f"t-file-{uuid.uuid4().hex[:8]}"
    code, output = _within(
        30, [command, str(path), "--ns", ns, "--db", falkordb_url, "--principal", "human:ana"]
    )
    assert code == 2, output
    assert "not a regular file" in output and str(path) in output


def test_the_html_page_is_private(falkordb_url: str, corpus_file: Path, tmp_path: Path) -> None:
    page = tmp_path / "trace.html"
    ns = f"t-html-{uuid.uuid4().hex[:8]}"
    result = runner.invoke(
        app,
        ["explain", "Who founded the company?", "--ns", ns, "--corpus", str(corpus_file),
         "--db", falkordb_url, "--html", str(page)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(page.stat().st_mode) == 0o600
