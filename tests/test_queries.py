"""The query registry and the one door for interpolation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mragent.core.errors import ConfigError, QueryError
from mragent.core.queries import ENGINES, get_query, query_dir, query_names
from tests.fixtures import INJECTIONS


def test_every_query_file_parses_on_every_engine() -> None:
    names = query_names()
    assert {"traverse", "ingest_batch", "cue_vector_search", "schema_vector"} <= set(names)
    for name in names:
        for engine in ENGINES:
            assert get_query(name, engine).name == name


def test_only_declared_integer_placeholders_exist() -> None:
    for path in query_dir().rglob("*.cypher"):
        placeholders = set(re.findall(r"\{\{(\w+)\}\}", path.read_text()))
        assert placeholders <= {"depth", "dimension"}, path


def test_traverse_is_the_literal_pattern() -> None:
    text = get_query("traverse", "neo4j").render(depth=3)
    assert "(c:Cue)-[:LINKED_TO*1..3]->(t:Tag)-[:REFERENCES]->(m:Content)" in text


@pytest.mark.parametrize("bad", [0, 5, -1, True, 2.0, "2", "1..9] DETACH DELETE n //"])
def test_render_refuses_anything_but_an_in_range_int(bad: object) -> None:
    with pytest.raises(ConfigError, match="depth"):
        get_query("traverse", "falkordb").render(depth=bad)  # type: ignore[arg-type]


def test_render_refuses_undeclared_placeholders() -> None:
    with pytest.raises(ConfigError):
        get_query("traverse", "falkordb").render(depth=2, ns=1)


@pytest.mark.parametrize("payload", INJECTIONS)
def test_params_must_match_the_header(payload: str) -> None:
    template = get_query("namespace_stats", "falkordb")
    template.check_params({"ns": payload})  # any value is fine: it is a parameter
    with pytest.raises(QueryError, match="unexpected"):
        template.check_params({"ns": "a", payload: 1})


def _data_queries() -> list[Path]:
    """Every query file but the schema statements (indexes span the database)."""
    return [p for p in query_dir().rglob("*.cypher") if not p.stem.startswith("schema_")]


def test_every_data_query_filters_on_namespace() -> None:
    for path in _data_queries():
        if path.stem == "namespaces":
            continue
        assert "$ns" in path.read_text(), f"{path} does not filter on the namespace"


# A scope predicate on a node variable: `x.scope IN $scopes`, or a write into `scope: $scope`.
_SCOPE_FILTER = re.compile(r"\b\w+\.scope IN \$scopes\b|\bscope: \$scope\b")
_SCOPE_EXEMPT = re.compile(r"^// scope: namespace-wide: \S", re.M)


def test_every_data_query_enforces_the_scope_or_says_why_not() -> None:
    for path in _data_queries():
        text = path.read_text()
        assert _SCOPE_FILTER.search(text) or _SCOPE_EXEMPT.search(text), (
            f"{path} neither filters on $scopes nor declares '// scope: namespace-wide: <why>'"
        )


def test_every_memory_node_a_scoped_query_matches_is_scope_filtered() -> None:
    """In a scoped query, each node variable bound by MATCH is filtered by scope."""
    for path in _data_queries():
        text = path.read_text()
        if _SCOPE_EXEMPT.search(text):
            continue
        body = "\n".join(line for line in text.splitlines() if not line.startswith("//"))
        matched = set(re.findall(r"MATCH[^\n]*?\((\w+):(?:Cue|Tag|Content)\b", body))
        for var in matched:
            if re.search(rf"\b{var}\.scope IN \$scopes\b|\({var}:\w+ {{[^}}]*scope: \$scope", body):
                continue
            # A node reached only through an edge of a scoped node shares its scope
            # (edges never cross scopes); the test names the ones that are not.
            raise AssertionError(f"{path}: node {var!r} is matched without a scope predicate")


def test_no_query_removes_two_properties_at_once() -> None:
    # FalkorDB 4.16 removes the wrong properties of a node when one statement removes
    # two or more of them (measured: about half the time for four); one removal among
    # any number of updates is safe. So a query may remove at most one property.
    removal = re.compile(r"\b\w+\.\w+\s*=\s*null\b|\bREMOVE\s+\w+\.\w+", re.I)
    for path in query_dir().rglob("*.cypher"):
        body = "\n".join(
            line for line in path.read_text().splitlines() if not line.startswith("//")
        )
        for statement in body.split(";"):
            found = removal.findall(statement)
            assert len(found) <= 1, f"{path}: removes {found} in one statement"
