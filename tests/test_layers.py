"""The packages are layers and import only downward:
core < memory < apps < evolution < facade < integrations < mcp_server < cli.

A module's layer is its first subpackage under ``mragent``. Every import is
checked, at module level or inside a function, including ``TYPE_CHECKING``
blocks and relative imports. ``mragent/__init__.py`` re-exports the facade and
sits on its layer: it may import any layer up to the facade, and nothing below
the MCP server may import it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import mragent

LAYERS = ("core", "memory", "apps", "evolution", "facade", "integrations", "mcp_server", "cli")
PACKAGE = Path(mragent.__file__).resolve().parent
# `mragent` itself is the facade's public name: it stands on the facade's layer.
FACADE_LAYER = LAYERS.index("facade")


def _module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _layer(module: str) -> int | None:
    """The layer of ``mragent.<layer>...``; None for a module outside mragent."""
    parts = module.split(".")
    if parts[0] != "mragent":
        return None
    if len(parts) == 1:
        return FACADE_LAYER
    if parts[1] not in LAYERS:
        raise AssertionError(f"mragent.{parts[1]} belongs to no layer {LAYERS}")
    return LAYERS.index(parts[1])


def _imported(module: str, is_package: bool, tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, imported module) of every import in ``tree``, relative ones resolved."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if target == "mragent":
                # `from mragent import memory` names a subpackage; any other name
                # (`open_memory`, `__version__`) is the facade the package re-exports.
                for alias in node.names:
                    yield node.lineno, f"mragent.{alias.name}" if alias.name in LAYERS else target
            else:
                yield node.lineno, target


def upward_imports(package: Path = PACKAGE) -> list[str]:
    """One line per import of a higher layer, naming the module, the line and the import."""
    found = []
    for path in sorted(package.rglob("*.py")):
        module = _module_name(path, package)
        layer = _layer(module)
        assert layer is not None
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for line, target in _imported(module, path.name == "__init__.py", tree):
            target_layer = _layer(target)
            if target_layer is not None and target_layer > layer:
                found.append(f"{module} (line {line}) imports {target}")
    return found


def test_every_module_belongs_to_a_layer() -> None:
    stray = [_module_name(path) for path in PACKAGE.glob("*.py") if path.name != "__init__.py"]
    assert stray == [], f"modules directly under mragent/ belong to no layer: {stray}"


def test_no_module_imports_a_higher_layer() -> None:
    found = upward_imports()
    assert found == [], "upward imports (layers: " + " < ".join(LAYERS) + "):\n" + "\n".join(found)


def test_the_check_sees_function_local_and_relative_imports(tmp_path: Path) -> None:
    package = tmp_path / "mragent"
    (package / "core").mkdir(parents=True)
    (package / "memory").mkdir()
    (package / "__init__.py").write_text("from mragent.cli import app\n")
    (package / "core" / "__init__.py").write_text("")
    (package / "core" / "view.py").write_text(
        "def f():\n    from mragent.memory.reader import MemoryReader\n    return MemoryReader\n"
    )
    (package / "core" / "text.py").write_text("from ..memory import writer\n")
    (package / "memory" / "__init__.py").write_text("from . import reader\n")
    (package / "memory" / "reader.py").write_text("from mragent.core import view\n")
    assert upward_imports(package) == [
        "mragent (line 1) imports mragent.cli",
        "mragent.core.text (line 1) imports mragent.memory",
        "mragent.core.view (line 2) imports mragent.memory.reader",
    ]
