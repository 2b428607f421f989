"""Registry of named Cypher queries, their shared fragments and the one door for interpolation.

Each query is a ``.cypher`` file whose header declares what it takes (abridged;
``cypher/README.md`` says what each query is for and every rule a file follows)::

    // traverse: one question's round trip. ...
    // params: ns, scopes, trust, as_of, candidates, cue_k, fanout, ...
    // returns: version, uid, entries, found, bridged
    // render: depth 1..4, rank {rank|rank_pending|rank_all}

``params`` are Cypher ``$parameters``. ``render`` names the only placeholders
that are substituted into the text at run time (``{{depth}}``, ``{{rank}}``):
each is a range-checked integer or an identifier from a declared closed set;
Cypher cannot parameterise a variable-length bound such as ``*1..N`` or a
property name.

**Engines.** Each registered engine (:mod:`mragent.core.engines`) has one folder,
``cypher/engines/<engine>/``, holding its overrides: ``NAME.cypher`` replaces the
common query of that name for that engine only, ``fragments/NAME.cypher`` the
common fragment, where the dialect really differs. An override replaces a
common file, never adds a query of its own, and declares what the common file
declares (the same ``params`` and ``returns``; a query's ``render`` may add only
``chunk``; a fragment the same argument and ``params``), so a caller never knows
which engine it talks to. The loader refuses anything else.

**Fragments.** A predicate or expression several queries need (the read view,
above all) lives once, in ``cypher/fragments/NAME.cypher``, with a header::

    // fragment: visible(m)
    // params: ns, scopes, trust, as_of

A query includes it with ``{{> visible m}}``: the registry replaces the marker
with the fragment's body (its ``//`` lines dropped), the fragment's formal
argument replaced as a whole word by the actual one (an identifier or a
property path such as ``rec.embedding``). Fragments may include fragments.
Expansion happens once per query and engine, when the query is first asked for
(a process reads only the files it runs); the expanded text is what a template
holds, and its header ``params`` are checked against the expanded body. Nothing
is interpolated at run time except through :meth:`QueryTemplate.render`.

**Write conventions** (every write query follows them): a write includes
``{{> bump space}}`` first, which bumps the namespace's ``MemorySpace.version``
in the same statement, stamps ``v = space.version`` on every node it creates or
whose visibility it changes, and returns ``version``, so the caller can check
that exactly one row came back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from mragent.core.engines import ENGINES
from mragent.core.errors import ConfigError, QueryError
from mragent.core.paths import shipped

FRAGMENTS = "fragments"  # common fragments, and each engine's, live in a folder of this name
ENGINE_DIRS = "engines"  # cypher/engines/<engine>/: one folder of overrides per engine
# A placeholder only an engine's copy may add: it runs a namespace-wide write in chunks.
ENGINE_RENDER = frozenset({"chunk"})
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
_INCLUDE = re.compile(r"\{\{>\s*(\w+)(?:\s+([^\s{}]+))?\s*\}\}")
_HEADER = re.compile(r"^//\s*(params|returns|render):\s*(.*)$")
_FRAGMENT = re.compile(r"^//\s*fragment:\s*(\w+)(?:\((\w*)\))?\s*$")
_CONTINUATION = re.compile(r"^//\s{3,}\S")
_RENDER_RANGE = re.compile(r"^(\w+)\s+(-?\d+)\.\.(-?\d+)$")
_RENDER_CHOICE = re.compile(r"^(\w+)\s+\{(\w+(?:\|\w+)*)\}$")
_ARGUMENT = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")
_MAX_NESTING = 8
_QUERY_NAME = re.compile(r"\w+")  # a file name, never a path

RenderSpec = tuple[int, int] | frozenset[str]


@dataclass(frozen=True)
class QueryTemplate:
    """A parsed ``.cypher`` file, its fragments expanded for one engine."""

    name: str
    engine: str | None  # None for the common file
    text: str  # the file, fragments expanded, comments and all
    params: frozenset[str]
    returns: tuple[str, ...]
    render_specs: Mapping[str, RenderSpec]
    # What the database is sent: the text without its whole-line comments. The
    # explanations stay in the files; FalkorDB parses every byte it gets on every call.
    statement: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        lines = self.text.splitlines()
        code = "\n".join(line for line in lines if not line.lstrip().startswith("//"))
        object.__setattr__(self, "statement", code)

    def render(self, **values: int | str) -> str:
        """Substitute the declared placeholders and nothing else.

        Raises:
            ConfigError: when a value is missing, of the wrong type, out of range
                or not in its closed set.
        """
        if set(values) != set(self.render_specs):
            raise ConfigError(
                f"query {self.name!r} renders {sorted(self.render_specs)}, got {sorted(values)}"
            )
        for key, value in values.items():
            spec = self.render_specs[key]
            if isinstance(spec, frozenset):
                if type(value) is not str or value not in spec:
                    raise ConfigError(
                        f"query {self.name!r}: {key}={value!r} must be one of {sorted(spec)}"
                    )
                continue
            low, high = spec
            # bool is an int subclass; a True here is a bug, not a depth of 1.
            if type(value) is not int or not low <= value <= high:
                raise ConfigError(
                    f"query {self.name!r}: {key}={value!r} must be an integer in {low}..{high}"
                )
        return _PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), self.statement)

    def check_params(self, params: Mapping[str, object]) -> None:
        """Refuse a call whose parameters differ from the declared ones."""
        given = set(params)
        if given != self.params:
            missing = sorted(self.params - given)
            extra = sorted(given - self.params)
            raise QueryError(self.name, f"parameters missing {missing}, unexpected {extra}")


@dataclass(frozen=True)
class _Fragment:
    name: str
    formal: str | None
    body: str  # its own includes not yet expanded
    params: frozenset[str]


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


def _listed(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def _render_specs(name: str, items: list[str]) -> dict[str, RenderSpec]:
    specs: dict[str, RenderSpec] = {}
    for item in items:
        ranged, choice = _RENDER_RANGE.match(item), _RENDER_CHOICE.match(item)
        if ranged:
            specs[ranged.group(1)] = (int(ranged.group(2)), int(ranged.group(3)))
        elif choice:
            specs[choice.group(1)] = frozenset(choice.group(2).split("|"))
        else:
            raise ConfigError(f"{name}.cypher: bad render declaration {item!r}")
    return specs


def _parse_fragment(path: Path) -> _Fragment:
    text = path.read_text(encoding="utf-8")
    declared = _FRAGMENT.match(text.splitlines()[0].strip()) if text.strip() else None
    if not declared or declared.group(1) != path.stem:
        raise ConfigError(f"{path}: a fragment starts with '// fragment: {path.stem}(arg)'")
    params = next((_listed(v) for k, v in _header_items(text) if k == "params"), [])
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    return _Fragment(path.stem, declared.group(2) or None, body.strip(), frozenset(params))


def _substitute(fragment: _Fragment, argument: str | None, where: str) -> str:
    """The fragment's body with its formal argument replaced by ``argument``."""
    if (fragment.formal is None) != (argument is None):
        wanted = f"one argument ({fragment.formal})" if fragment.formal else "no argument"
        raise ConfigError(f"{where}: fragment {fragment.name!r} takes {wanted}")
    if fragment.formal is None or argument is None:
        return fragment.body
    if not _ARGUMENT.match(argument):
        raise ConfigError(f"{where}: fragment argument {argument!r} is not an identifier")
    # Not after `$`, `.` or a word character: a parameter or property of that name stays.
    word = re.compile(rf"(?<![\w$.]){re.escape(fragment.formal)}\b")
    root = argument.split(".")[0]
    if root != fragment.formal and re.search(rf"(?<![\w$.]){re.escape(root)}\b", fragment.body):
        raise ConfigError(f"{where}: argument {argument!r} collides with {fragment.name!r}")
    return word.sub(argument, fragment.body)


def _expand(text: str, engine: str, where: str, depth: int = 0) -> str:
    """``text`` with every ``{{> fragment arg}}`` replaced, recursively."""
    if depth > _MAX_NESTING:
        raise ConfigError(f"{where}: fragments nest deeper than {_MAX_NESTING} (a cycle?)")
    fragments = _fragments(engine)

    def include(match: re.Match[str]) -> str:
        found = fragments.get(match.group(1))
        if found is None:
            raise ConfigError(f"{where}: no fragment {match.group(1)!r}")
        body = _substitute(found, match.group(2), where)
        return _expand(body, engine, f"{where} > {found.name}", depth + 1)

    expanded = _INCLUDE.sub(include, text)
    if "{{>" in expanded:
        raise ConfigError(f"{where}: malformed include (expected '{{{{> fragment argument}}}}')")
    return expanded


@cache
def _fragments(engine: str) -> dict[str, _Fragment]:
    """Fragments for ``engine``: the common ones, overridden by the engine's own.

    Raises:
        ConfigError: when an engine's fragment replaces none, or takes another
            argument or other parameters than the one it replaces.
    """
    root = query_dir() / FRAGMENTS
    found = {path.stem: _parse_fragment(path) for path in sorted(root.glob("*.cypher"))}
    for path in sorted((engine_dir(engine) / FRAGMENTS).glob("*.cypher")):
        own, common = _parse_fragment(path), found.get(path.stem)
        if common is None:
            raise ConfigError(f"{path}: overrides no fragment (no {FRAGMENTS}/{path.name})")
        if (own.formal, own.params) != (common.formal, common.params):
            raise ConfigError(
                f"{path}: takes ({own.formal}) with params {sorted(own.params)}; the common "
                f"fragment takes ({common.formal}) with params {sorted(common.params)}"
            )
        found[path.stem] = own
    return found


def _check_fragments(engine: str) -> None:
    """Each fragment's header params are those its body (expanded) uses."""
    for fragment in _fragments(engine).values():
        body = _expand(fragment.body, engine, f"fragment {fragment.name} ({engine})")
        used = set(re.findall(r"\$(\w+)", body))
        if used != set(fragment.params):
            raise ConfigError(
                f"fragment {fragment.name!r} ({engine}): header params "
                f"{sorted(fragment.params)} != used {sorted(used)}"
            )


_Declared = tuple[frozenset[str], tuple[str, ...], dict[str, RenderSpec]]


def _declared(name: str, text: str) -> _Declared:
    """The ``params``, ``returns`` and ``render`` a query file's header declares."""
    params: frozenset[str] = frozenset()
    returns: tuple[str, ...] = ()
    specs: dict[str, RenderSpec] = {}
    for key, value in _header_items(text):
        if key == "params":
            params = frozenset(_listed(value))
        elif key == "returns":
            returns = tuple(_listed(value))
        else:
            specs = _render_specs(name, _listed(value))
    return params, returns, specs


def _parse(name: str, engine: str | None, text: str, expanded: str) -> QueryTemplate:
    params, returns, specs = _declared(name, text)
    used = set(_PLACEHOLDER.findall(expanded))
    if used != set(specs):
        raise ConfigError(f"{name}.cypher: placeholders {sorted(used)} != declared {sorted(specs)}")
    body_params = set(re.findall(r"\$(\w+)", expanded))
    if body_params != set(params):
        raise ConfigError(
            f"{name}.cypher: header params {sorted(params)} != used {sorted(body_params)}"
        )
    return QueryTemplate(name, engine, expanded, params, returns, specs)


def query_dir() -> Path:
    """Directory holding the ``.cypher`` files (packaged copy, else the repo's)."""
    return shipped("_cypher", "cypher")


def engine_dir(engine: str) -> Path:
    """The folder of ``engine``'s overrides: ``cypher/engines/<engine>/``."""
    return query_dir() / ENGINE_DIRS / engine


def _check_override(where: str, common: _Declared, own: _Declared) -> None:
    """An engine's query declares what the common one does, so a caller cannot tell
    which it runs; only :data:`ENGINE_RENDER` placeholders may be added."""
    if own[:2] != common[:2]:
        raise ConfigError(
            f"{where}: params {sorted(own[0])} returns {list(own[1])}; the common "
            f"query has params {sorted(common[0])} returns {list(common[1])}"
        )
    added = set(own[2]) - set(common[2])
    if added - ENGINE_RENDER or any(own[2].get(key) != spec for key, spec in common[2].items()):
        raise ConfigError(
            f"{where}: renders {own[2]}; the common query renders {common[2]} "
            f"(an engine may add only {sorted(ENGINE_RENDER)})"
        )


def _check_engine(engine: str) -> None:
    """What every query of ``engine`` relies on: each of its overrides replaces a common
    query, and each fragment's header params are those its body uses."""
    root = query_dir()
    for path in engine_dir(engine).glob("*.cypher"):
        if not (root / path.name).is_file():
            raise ConfigError(f"{path}: overrides no query (no {path.name} in {root})")
    _check_fragments(engine)


_checked_engines: set[str] = set()


@cache
def _template(name: str, engine: str) -> QueryTemplate | None:
    """Query ``name`` on ``engine``, its fragments expanded: read when first asked for,
    so a process reads the few files it runs, not all of them (about 15 ms at start)."""
    if engine not in ENGINES or not _QUERY_NAME.fullmatch(name):
        return None
    common = query_dir() / f"{name}.cypher"
    if not common.is_file():
        return None
    if engine not in _checked_engines:
        _check_engine(engine)
        _checked_engines.add(engine)
    text = common.read_text(encoding="utf-8")
    override = engine_dir(engine) / common.name
    owner: str | None = None
    if override.is_file():
        owner, own = engine, override.read_text(encoding="utf-8")
        _check_override(
            f"{ENGINE_DIRS}/{engine}/{common.name}", _declared(name, text), _declared(name, own)
        )
        text = own
    return _parse(name, owner, text, _expand(text, engine, f"{name}.cypher ({engine})"))


def clear_caches() -> None:
    """Forget every query, fragment and check loaded so far (for a test that points
    :func:`query_dir` at other files)."""
    _template.cache_clear()
    _fragments.cache_clear()
    _checked_engines.clear()


def get_query(name: str, engine: str) -> QueryTemplate:
    """The template for ``name`` on ``engine`` (engine override first, fragments expanded).

    Raises:
        QueryError: when no such query exists.
        ConfigError: when its file, a fragment or an override of the engine breaks a rule.
    """
    found = _template(name, engine)
    if found is None:
        raise QueryError(name, "no such query file")
    return found


def query_names() -> list[str]:
    """All registered query names."""
    return sorted(path.stem for path in query_dir().glob("*.cypher"))
