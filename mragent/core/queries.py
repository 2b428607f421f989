"""Registry of named Cypher queries and the one door for interpolation.

Each query is a ``.cypher`` file whose header declares what it takes::

    // traverse: expand entry cues into contents.
    // params: ns, cues, fanout, decay, prune, limit
    // returns: content_id, evidence, hops, path
    // render: depth 1..4

``params`` are Cypher ``$parameters``. ``render`` names the only placeholders
(``{{depth}}``) that are substituted into the text, each a range-checked
integer; Cypher cannot parameterise a variable-length bound such as ``*1..N``.
A file under ``cypher/<engine>/`` overrides the common one for that engine
only where the dialect really differs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from mragent.core.errors import ConfigError, QueryError
from mragent.core.paths import shipped

ENGINES = ("falkordb", "neo4j", "memgraph")
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
_HEADER = re.compile(r"^//\s*(params|returns|render):\s*(.*)$")
_CONTINUATION = re.compile(r"^//\s{3,}\S")
_RENDER_ITEM = re.compile(r"^(\w+)\s+(-?\d+)\.\.(-?\d+)$")


@dataclass(frozen=True)
class QueryTemplate:
    """A parsed ``.cypher`` file."""

    name: str
    engine: str | None  # None for the common file
    text: str
    params: frozenset[str]
    returns: tuple[str, ...]
    render_bounds: dict[str, tuple[int, int]]

    def render(self, **values: int) -> str:
        """Substitute the declared integer placeholders and nothing else.

        Raises:
            ConfigError: when a value is missing, not an int, or out of range.
        """
        if set(values) != set(self.render_bounds):
            raise ConfigError(
                f"query {self.name!r} renders {sorted(self.render_bounds)}, got {sorted(values)}"
            )
        for key, value in values.items():
            low, high = self.render_bounds[key]
            # bool is an int subclass; a True here is a bug, not a depth of 1.
            if type(value) is not int or not low <= value <= high:
                raise ConfigError(
                    f"query {self.name!r}: {key}={value!r} must be an integer in {low}..{high}"
                )
        return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), self.text)

    def check_params(self, params: dict[str, object]) -> None:
        """Refuse a call whose parameters differ from the declared ones."""
        given = set(params)
        if given != self.params:
            missing = sorted(self.params - given)
            extra = sorted(given - self.params)
            raise QueryError(self.name, f"parameters missing {missing}, unexpected {extra}")


def _header_items(text: str) -> list[tuple[str, str]]:
    """``(key, value)`` of each header line.

    A ``//`` line indented by three or more spaces, directly after a header
    line, continues it (long parameter lists stay under the line length).
    """
    items: list[tuple[str, str]] = []
    continues = False
    for line in text.splitlines():
        stripped = line.strip()
        match = _HEADER.match(stripped)
        if match:
            items.append((match.group(1), match.group(2).strip()))
            continues = True
        elif continues and _CONTINUATION.match(stripped):
            key, value = items[-1]
            items[-1] = (key, f"{value}, {stripped[2:].strip()}")
        else:
            continues = False
    return items


def _parse(name: str, engine: str | None, text: str) -> QueryTemplate:
    params: frozenset[str] = frozenset()
    returns: tuple[str, ...] = ()
    bounds: dict[str, tuple[int, int]] = {}
    for key, value in _header_items(text):
        items = [item.strip() for item in value.split(",") if item.strip()]
        if key == "params":
            params = frozenset(items)
        elif key == "returns":
            returns = tuple(items)
        else:
            for item in items:
                spec = _RENDER_ITEM.match(item)
                if not spec:
                    raise ConfigError(f"{name}.cypher: bad render declaration {item!r}")
                bounds[spec.group(1)] = (int(spec.group(2)), int(spec.group(3)))
    used = set(_PLACEHOLDER.findall(text))
    if used != set(bounds):
        raise ConfigError(
            f"{name}.cypher: placeholders {sorted(used)} != declared {sorted(bounds)}"
        )
    body_params = set(re.findall(r"\$(\w+)", text))
    if body_params != set(params):
        raise ConfigError(
            f"{name}.cypher: header params {sorted(params)} != used {sorted(body_params)}"
        )
    return QueryTemplate(name, engine, text, params, returns, bounds)


def query_dir() -> Path:
    """Directory holding the ``.cypher`` files (packaged copy, else the repo's)."""
    return shipped("_cypher", "cypher")


@cache
def _load_all() -> dict[tuple[str, str | None], QueryTemplate]:
    root = query_dir()
    templates: dict[tuple[str, str | None], QueryTemplate] = {}
    for path in sorted(root.glob("*.cypher")):
        templates[(path.stem, None)] = _parse(path.stem, None, path.read_text(encoding="utf-8"))
    for engine in ENGINES:
        for path in sorted((root / engine).glob("*.cypher")):
            text = path.read_text(encoding="utf-8")
            templates[(path.stem, engine)] = _parse(path.stem, engine, text)
    return templates


def get_query(name: str, engine: str) -> QueryTemplate:
    """The template for ``name`` on ``engine`` (engine override first).

    Raises:
        QueryError: when no such query exists.
    """
    templates = _load_all()
    found = templates.get((name, engine)) or templates.get((name, None))
    if found is None:
        raise QueryError(name, "no such query file")
    return found


def query_names() -> list[str]:
    """All registered query names."""
    return sorted({name for name, _ in _load_all()})
