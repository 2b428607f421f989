"""The query registry, its fragments and the one door for interpolation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mragent.core import queries
from mragent.core.engines import ENGINES
from mragent.core.errors import ConfigError, QueryError
from mragent.core.queries import FRAGMENTS, engine_dir, get_query, query_dir, query_names
from tests.fixtures import INJECTIONS


def test_every_query_file_parses_on_every_engine() -> None:
    names = query_names()
    assert {"traverse", "ingest_batch", "cue_vector_search", "schema_vector"} <= set(names)
    for name in names:
        for engine in ENGINES:
            assert get_query(name, engine).name == name


def _query_files() -> list[Path]:
    return [p for p in query_dir().rglob("*.cypher") if FRAGMENTS not in p.parts]


def test_only_declared_placeholders_exist() -> None:
    for path in query_dir().rglob("*.cypher"):
        placeholders = set(re.findall(r"\{\{(\w+)\}\}", path.read_text()))
        assert placeholders <= {"chunk", "depth", "dimension", "rank"}, path


def test_traverse_matches_the_literal_pattern_in_two_steps() -> None:
    # The design's shape, cut after its variable-length step (tests/test_traverse_forms.py
    # proves the cut changes no row), with relationship variables for the rank filters.
    walk = r"MATCH p = \(c:Cue\)-\[e:LINKED_TO\*1\.\.3\]->\(t:Tag\)\n"
    references = r"MATCH \(t\)-\[r:REFERENCES\]->\(m:Content\)\n"
    for engine in ENGINES:
        text = get_query("traverse", engine).render(depth=3, rank="rank")
        assert re.search(walk + r"(?:.*\n){3,6}?  " + references, text), engine


@pytest.mark.parametrize("bad", [0, -1, True, 2.0, "2", "1 ROWS } MATCH (n) DETACH DELETE n //"])
def test_a_chunk_size_is_an_in_range_int(bad: object) -> None:
    with pytest.raises(ConfigError, match="chunk"):
        get_query("delete_namespace", "neo4j").render(chunk=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [0, 5, -1, True, 2.0, "2", "1..9] DETACH DELETE n //"])
def test_render_refuses_anything_but_an_in_range_int(bad: object) -> None:
    with pytest.raises(ConfigError, match="depth"):
        get_query("traverse", "falkordb").render(depth=bad, rank="rank")  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", ["weight", "rank OR 1=1", "", 1, "RANK"])
def test_render_refuses_an_identifier_outside_its_closed_set(bad: object) -> None:
    with pytest.raises(ConfigError, match="rank"):
        get_query("traverse", "neo4j").render(depth=2, rank=bad)  # type: ignore[arg-type]


def test_render_takes_each_identifier_of_the_closed_set() -> None:
    for rank in ("rank", "rank_pending", "rank_all"):
        text = get_query("traverse", "neo4j").render(depth=2, rank=rank)
        assert f"r.{rank} <= $fanout" in text and "{{" not in text


def test_render_refuses_undeclared_placeholders() -> None:
    with pytest.raises(ConfigError):
        get_query("traverse", "falkordb").render(depth=2, rank="rank", ns=1)


@pytest.mark.parametrize("payload", INJECTIONS)
def test_params_must_match_the_header(payload: str) -> None:
    template = get_query("namespace_stats", "falkordb")
    template.check_params({"ns": payload})  # any value is fine: it is a parameter
    with pytest.raises(QueryError, match="unexpected"):
        template.check_params({"ns": "a", payload: 1})


# -- fragments -------------------------------------------------------------------------


def test_fragments_are_expanded_once_per_engine() -> None:
    for name in query_names():
        for engine in ENGINES:
            assert "{{>" not in get_query(name, engine).text, (name, engine)
    falkor, neo = get_query("ingest_batch", "falkordb"), get_query("ingest_batch", "neo4j")
    assert "c.embedding = vecf32(rec.embedding)" in falkor.text
    assert "c.embedding = rec.embedding" in neo.text and "vecf32" not in neo.text
    falkor_walk = (
        "(e.rank <= CASE WHEN startNode(e):Cue THEN $fanout ELSE $link_fanout END\n"
        " OR e.alias >= $alias_min) AND endNode(e).ns = $ns AND endNode(e).scope IN $scopes"
    )
    assert falkor_walk in get_query("traverse", "falkordb").text
    neo_walk = "all(link IN e WHERE (link.rank <= CASE WHEN startNode(link):Cue THEN $fanout"
    assert neo_walk in get_query("traverse", "neo4j").text


def test_the_engine_copy_of_ingest_batch_is_gone() -> None:
    for engine in ENGINES:
        assert not (engine_dir(engine) / "ingest_batch.cypher").exists()
        assert not (engine_dir(engine) / "reembed_write.cypher").exists()
    assert get_query("ingest_batch", "falkordb").engine is None


# The read-view predicate's two distinctive parts: record time and trust at record time.
_VIEW_PARTS = (
    re.compile(r"\w+\.superseded_at IS NULL OR \w+\.superseded_at > \$as_of"),
    re.compile(r"\w+\.trust_log\[size\("),
)


def test_the_read_view_predicate_is_written_in_exactly_one_file() -> None:
    for part in _VIEW_PARTS:
        holders = [p for p in query_dir().rglob("*.cypher") if part.search(p.read_text())]
        assert len(holders) == 1, (part.pattern, holders)
        assert FRAGMENTS in holders[0].parts
    # ... and reaches every query that reads through the view, after expansion.
    for name in ("traverse", "content_snapshot"):
        for part in _VIEW_PARTS:
            assert part.search(get_query(name, "neo4j").text), name


def _fragment_dir(tmp_path: Path, body: str, name: str = "pick") -> Path:
    (tmp_path / FRAGMENTS).mkdir(exist_ok=True)
    (tmp_path / FRAGMENTS / f"{name}.cypher").write_text(body)
    return tmp_path


def _load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, query: str) -> str:
    (tmp_path / "q.cypher").write_text(query)
    monkeypatch.setattr(queries, "query_dir", lambda: tmp_path)
    queries.clear_caches()
    try:
        return queries.get_query("q", "neo4j").text
    finally:
        monkeypatch.undo()
        queries.clear_caches()


def test_a_fragment_argument_replaces_whole_words_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fragment_dir(tmp_path, "// fragment: pick(m)\n// params: mx\nm.mx = $mx AND m.m = m\n")
    text = _load(
        tmp_path, monkeypatch, "// q\n// params: mx\n// returns:\nMATCH (n) WHERE {{> pick n}}\n"
    )
    assert "WHERE n.mx = $mx AND n.m = n" in text


def test_a_query_is_read_when_first_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process reads the files it runs, not every one: a broken file fails only the
    query it holds, and a name is a file name, never a path."""
    (tmp_path / "broken.cypher").write_text("// broken\n// params: a\n// returns:\nRETURN 1\n")
    (tmp_path / "elsewhere.cypher").write_text("// elsewhere\n// params:\n// returns:\nRETURN 1\n")
    inner = tmp_path / "inner"
    inner.mkdir()
    monkeypatch.setattr(queries, "query_dir", lambda: inner)
    (inner / "q.cypher").write_text("// q\n// params:\n// returns: one\nRETURN 1 AS one\n")
    (inner / "broken.cypher").write_text((tmp_path / "broken.cypher").read_text())
    queries.clear_caches()
    try:
        assert get_query("q", "neo4j").returns == ("one",)
        with pytest.raises(ConfigError, match=r"broken\.cypher"):
            get_query("broken", "neo4j")
        with pytest.raises(QueryError, match="no such query"):
            get_query("../elsewhere", "neo4j")
        assert query_names() == ["broken", "q"]
    finally:
        monkeypatch.undo()
        queries.clear_caches()


_PICK = "// fragment: pick(m)\n// params:\n"


@pytest.mark.parametrize(
    ("fragment", "query", "error"),
    [
        (_PICK + "m.x\n", "MATCH (n) WHERE {{> nothing n}}", "no fragment"),
        (_PICK + "m.x\n", "MATCH (n) WHERE {{> pick n) OR 1=1}}", "malformed include"),
        (_PICK + "m.x\n", "MATCH (n) WHERE {{> pick n)}}", "not an identifier"),
        (_PICK + "m.x = at\n", "MATCH (at) WHERE {{> pick at}}", "collides"),
        (_PICK + "m.x = $y\n", "MATCH (n) WHERE {{> pick n}}", "params"),
        (_PICK + "{{> pick m}}\n", "MATCH (n) WHERE {{> pick n}}", "nest"),
        ("// fragment: pick()\n// params:\ntrue\n", "MATCH (n) WHERE {{> pick n}}", "no argument"),
        ("// fragment: other(m)\n// params:\nm.x\n", "MATCH (n) WHERE {{> pick n}}", "fragment"),
    ],
)
def test_bad_fragments_and_includes_are_refused_at_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fragment: str, query: str, error: str
) -> None:
    _fragment_dir(tmp_path, fragment)
    with pytest.raises(ConfigError, match=error):
        _load(tmp_path, monkeypatch, f"// q\n// params:\n// returns:\n{query}\n")


# -- namespace and scope ---------------------------------------------------------------


def _data_queries() -> list[tuple[str, str]]:
    """``(name, expanded text)`` of every query but the schema statements (indexes
    span the database), on every engine."""
    return [
        (name, get_query(name, engine).text)
        for name in query_names()
        if not name.startswith("schema_")
        for engine in ENGINES
    ]


def test_every_data_query_filters_on_namespace() -> None:
    for name, text in _data_queries():
        if name in ("namespaces", "content_namespaces"):  # they list the namespaces
            continue
        assert "$ns" in text, f"{name} does not filter on the namespace"


# A scope predicate on a node variable: `x.scope IN $scopes`, or a write into `scope: $scope`.
_SCOPE_FILTER = re.compile(r"\b\w+\.scope IN \$scopes\b|\bscope: \$scope\b")
_SCOPE_EXEMPT = re.compile(r"^// scope: namespace-wide: \S", re.M)


def test_every_data_query_enforces_the_scope_or_says_why_not() -> None:
    for name, text in _data_queries():
        assert _SCOPE_FILTER.search(text) or _SCOPE_EXEMPT.search(text), (
            f"{name} neither filters on $scopes nor declares '// scope: namespace-wide: <why>'"
        )


def test_every_memory_node_a_scoped_query_matches_is_scope_filtered() -> None:
    """In a scoped query, each node variable bound by MATCH is filtered by scope."""
    for name, text in _data_queries():
        if _SCOPE_EXEMPT.search(text):
            continue
        body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
        matched = set(re.findall(r"MATCH[^\n]*?\((\w+):(?:Cue|Tag|Content)\b", body))
        for var in matched:
            if re.search(rf"\b{var}\.scope IN \$scopes\b|\({var}:\w+ {{[^}}]*scope: \$scope", body):
                continue
            # A node reached only through an edge of a scoped node shares its scope
            # (edges never cross scopes); the test names the ones that are not.
            raise AssertionError(f"{name}: node {var!r} is matched without a scope predicate")


def test_every_write_bumps_the_namespace_version_in_the_same_statement() -> None:
    writers = {
        name
        for name, text in _data_queries()
        if re.search(r"\b(SET|MERGE|CREATE|DELETE|REMOVE)\b", _body(text))
    }
    # Traces (telemetry), the audit anchor, the first stamp, the edge ranks and the alias
    # edges (read live by every traversal, never cached by a reader) are not memory writes.
    exempt = {"audit_anchor", "stamp_space", "delete_namespace", "tag_alias_link"}
    exempt |= {n for n in writers if n.startswith("trace_")}
    exempt |= {n for n in writers if n.startswith("rank_")}
    assert {"ingest_batch", "memory_forget", "memory_accept", "memory_reject"} <= writers
    for name in sorted(writers - exempt):
        text = _body(get_query(name, "neo4j").text)
        assert "SET space.version = coalesce(space.version, 0) + 1" in text, name
        assert "AS version" in text, name


def _body(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))


def test_no_query_removes_two_properties_at_once() -> None:
    # FalkorDB 4.16 removes the wrong properties of a node when one statement removes
    # two or more of them (measured: about half the time for four); one removal among
    # any number of updates is safe. So a query may remove at most one property.
    removal = re.compile(r"\b\w+\.\w+\s*=\s*null\b|\bREMOVE\s+\w+\.\w+", re.I)
    for path in _query_files():
        body = "\n".join(
            line for line in path.read_text().splitlines() if not line.startswith("//")
        )
        for statement in body.split(";"):
            found = removal.findall(statement)
            assert len(found) <= 1, f"{path}: removes {found} in one statement"


def test_the_cypher_readme_names_every_query_and_fragment_and_nothing_else() -> None:
    readme = (query_dir() / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"^\| `(\w+)", readme, re.M))
    named |= set(re.findall(r"^\| `\w+`, `(\w+)`", readme, re.M))
    fragments = {p.stem for p in (query_dir() / FRAGMENTS).glob("*.cypher")}
    assert named == set(query_names()) | fragments
