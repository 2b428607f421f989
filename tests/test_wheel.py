"""The built wheel works outside the repository, .cypher files included."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.fixtures import CHAIN

pytestmark = pytest.mark.slow


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        args,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **(env or {})},
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_wheel_installs_and_ingests_from_another_directory(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(REPO)],
        cwd=tmp_path,
    )
    [wheel] = dist.glob("mragent-*.whl")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    # Dependencies come from the running interpreter's site-packages (a venv's too:
    # system_site_packages would point at the base interpreter's instead); the
    # package itself from the wheel. Paths listed in a .pth file are added without
    # reading the .pth files inside them, so an editable install there stays out.
    purelib = _run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], tmp_path
    )
    deps = [p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()]
    (Path(purelib.strip()) / "_running_deps.pth").write_text("\n".join(deps) + "\n")
    _run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], cwd=tmp_path)
    work = tmp_path / "elsewhere"
    work.mkdir()
    where = _run(
        [
            str(python),
            "-c",
            "import mragent, mragent.core.queries as q; "
            "print(mragent.__file__); print(q.query_dir())",
        ],
        cwd=work,
    )
    assert str(env_dir) in where and "_cypher" in where
    mragent = env_dir / "bin" / "mragent"
    assert "ingest" in _run([str(mragent), "--help"], cwd=work)
    (work / "chain.json").write_text(json.dumps(CHAIN))
    home = {"MRAGENT_HOME": str(work / ".state")}
    try:
        out = _run(
            [str(mragent), "ingest", "chain.json", "--ns", "wheel", "--principal", "human:tester"],
            cwd=work,
            env=home,
        )
        assert "ingested 4 contents" in out
    finally:
        _run([str(mragent), "db", "stop"], cwd=work, env=home)
