"""Every benchmark script still imports and parses its options.

The scripts import the package's modules directly, so a module that moves or a
name that changes breaks one without any other test noticing: each runs ``--help``
in a fresh interpreter here (from the benchmarks folder, as documented).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
SCRIPTS = sorted(p.name for p in BENCHMARKS.glob("*.py"))


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_script_loads_and_states_its_usage(script: str) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), "--help"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "usage" in done.stdout.lower()
