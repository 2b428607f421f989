"""Where mragent keeps its files: local state, and data shipped with the package.

The environment is read when a function is called, never at import.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

# mragent/core/paths.py -> the directory holding mragent/ (a checkout's root).
_SOURCE_ROOT = Path(__file__).resolve().parents[2]


def default_home() -> Path:
    """Where mragent keeps local state: ``$MRAGENT_HOME`` or ``./.mragent``."""
    return Path(os.environ.get("MRAGENT_HOME") or Path.cwd() / ".mragent").resolve()


def shipped(packaged: str, source: str) -> Path:
    """A data file or directory that ships with mragent.

    The wheel force-includes repository files under the package (see
    ``[tool.hatch.build.targets.wheel.force-include]`` in ``pyproject.toml``);
    a checkout or an editable install reads the repository's own copy.

    Args:
        packaged: The path inside the installed package, e.g. ``_cypher``.
        source: The path in the repository, e.g. ``cypher``.
    """
    installed = Path(str(resources.files("mragent"))) / packaged
    if installed.exists():
        return installed
    return _SOURCE_ROOT / source
