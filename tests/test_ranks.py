"""A write's nodes are ranked in statements of bounded size, with the ranks of one statement.

After a large write, :func:`mragent.memory.ranks.rank_touched` counts the touched
nodes' edges and packs them into ranking statements of at most ``EDGE_BUDGET``
edges (a year tag has thousands; on Neo4j one statement holding a million of them
ran past the transaction memory limit at 1M contents). The grouping must never
change a rank: the ranks after it equal the rank rule, on every engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from mragent.apps.synthetic import generate
from mragent.core.store.base import GraphStore, Rows
from mragent.memory import ranks
from mragent.memory.ingest import namespace_stats
from tests.fixtures import ingest
from tests.test_chunked import _LINKS, _REFS, _expected_ranks

SCOPE = "shared"


class _Degrees:
    """A store whose count queries answer from a table and whose other runs are recorded."""

    def __init__(self, degrees: dict[str, int]) -> None:
        self.degrees = degrees
        self.ran: list[tuple[str, list[str]]] = []

    def run(self, name: str, params: dict[str, Any]) -> Rows:
        names = params.get("names") or params.get("texts") or []
        if name.endswith("_edge_counts"):
            return [{"name": n, "edges": self.degrees[n]} for n in names if n in self.degrees]
        self.ran.append((name, list(names)))
        return []


def _groups(store: _Degrees, query: str) -> list[list[str]]:
    return [names for name, names in store.ran if name == query]


def test_names_are_packed_by_their_counted_edges(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ranks, "EDGE_BUDGET", 10)
    names = [f"t{i:02d}" for i in range(60)]
    degrees = {name: 3 for name in names} | {"t05": 25, "t06": 9}
    store = _Degrees(degrees)
    ranks.rank_touched(store, "ns", SCOPE, names, [])  # type: ignore[arg-type]
    groups = _groups(store, "rank_links_of_tags")
    assert groups == _groups(store, "rank_references_of_tags")
    assert [n for group in groups for n in group] == names  # every name once, in order
    for group in groups:
        edges = sum(degrees[n] for n in group)
        assert edges <= 10 or len(group) == 1, (group, edges)
    assert ["t05"] in groups and ["t06"] in groups  # a hub alone, and one that fills a group


def test_a_small_write_is_ranked_at_once_without_counting() -> None:
    store = _Degrees({})
    ranks.rank_touched(store, "ns", SCOPE, ["a", "b"], ["c"])  # type: ignore[arg-type]
    assert store.ran == [
        ("rank_links_of_tags", ["a", "b"]),
        ("rank_references_of_tags", ["a", "b"]),
        ("rank_links_of_cues", ["c"]),
    ]


def _names(store: GraphStore, ns: str) -> tuple[Sequence[str], Sequence[str]]:
    tags = store._execute(
        "tags", "MATCH (t:Tag) WHERE t.ns = $ns RETURN t.name AS n ORDER BY n", {"ns": ns}
    )
    cues = store._execute(
        "cues", "MATCH (c:Cue) WHERE c.ns = $ns RETURN c.text AS n ORDER BY n", {"ns": ns}
    )
    return [row["n"] for row in tags], [row["n"] for row in cues]


def test_ranks_written_in_budgeted_statements_follow_the_rank_rule(
    store: GraphStore, ns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest(store, generate(60), ns)
    tags, cues = _names(store, ns)
    for edges_query in (_LINKS, _REFS):
        store._execute(
            "scramble", edges_query.split(" RETURN ")[0] + " SET r.rank = -1", {"ns": ns}
        )
    monkeypatch.setattr(ranks, "EDGE_BUDGET", 40)
    ran: list[str] = []
    run = store.run

    def recorded(name: str, params: dict[str, Any] | None = None, **render: Any) -> Rows:
        ran.append(name)
        return run(name, params, **render)

    monkeypatch.setattr(store, "run", recorded)
    ranks.rank_touched(store, ns, SCOPE, tags, cues)
    assert len(tags) > ranks.UNCOUNTED and ran.count("tag_edge_counts") == 1
    assert ran.count("rank_links_of_tags") > 3  # the budget split the one count chunk
    for edges_query in (_LINKS, _REFS):
        edges = store._execute("edges", edges_query, {"ns": ns})
        assert len(edges) > 100
        assert {e["edge"]: e["rank"] for e in edges} == _expected_ranks(edges)


def _add_unranked_edges(store: GraphStore, ns: str, tag: str, cue: str) -> None:
    """An edge of a type no count may include, each way between ``tag`` and ``cue``."""
    store._execute(
        "foreign edges",
        "MATCH (t:Tag {ns: $ns, name: $tag}), (c:Cue {ns: $ns, text: $cue}) "
        "CREATE (t)-[:UNRANKED]->(c), (c)-[:UNRANKED]->(t)",
        {"ns": ns, "tag": tag, "cue": cue},
    )


def test_edge_counts_are_the_ranked_edges_leaving_each_node(store: GraphStore, ns: str) -> None:
    # The counts only pack statements, but an engine's own count (FalkorDB reads the
    # degree from its adjacency) must still count what the common query counts: the
    # ranked types only, so an edge of another type out of a tag or cue is left out.
    ingest(store, generate(30), ns)
    tags, cues = _names(store, ns)
    _add_unranked_edges(store, ns, tags[0], cues[0])
    truth = store._execute(
        "degrees",
        "MATCH (s {ns: $ns})-[r]->() WHERE type(r) IN ['LINKED_TO', 'REFERENCES'] "
        "RETURN coalesce(s.name, s.text) AS name, labels(s)[0] AS label, count(r) AS edges",
        {"ns": ns},
    )
    want = {(row["label"], row["name"]): int(row["edges"]) for row in truth}
    got = {
        ("Tag", row["name"]): int(row["edges"])
        for row in store.run("tag_edge_counts", {"ns": ns, "scope": SCOPE, "names": tags})
    } | {
        ("Cue", row["name"]): int(row["edges"])
        for row in store.run("cue_edge_counts", {"ns": ns, "scope": SCOPE, "texts": cues})
    }
    assert {key: n for key, n in got.items() if n} == want
    assert want[("Tag", tags[0])] > 0 and want[("Cue", cues[0])] > 0


def test_namespace_stats_count_the_namespace_s_own_nodes_and_edges(
    store: GraphStore, ns: str
) -> None:
    # FalkorDB sums its nodes' degrees instead of matching every edge: the counts must
    # still leave out other namespaces and edges of other types.
    ingest(store, generate(30), ns)
    other = f"{ns}-other"
    try:
        ingest(store, generate(12, seed=9), other)
        tags, cues = _names(store, ns)
        _add_unranked_edges(store, ns, tags[0], cues[0])
        nodes = store._execute(
            "nodes", "MATCH (n {ns: $ns}) RETURN labels(n)[0] AS label, count(n) AS n", {"ns": ns}
        )
        edges = store._execute(
            "edges",
            "MATCH (s {ns: $ns})-[r]->() RETURN type(r) AS kind, count(r) AS n",
            {"ns": ns},
        )
        count = {row["label"]: int(row["n"]) for row in nodes} | {
            row["kind"]: int(row["n"]) for row in edges
        }
        want = {
            "cues": count["Cue"],
            "tags": count["Tag"],
            "contents": count["Content"],
            "links": count["LINKED_TO"],
            "refs": count["REFERENCES"],
        }
        assert namespace_stats(store, ns) == want
        assert want["links"] > 100 and want["refs"] > 30 and count["UNRANKED"] == 2
        assert namespace_stats(store, f"{ns}-never") == dict.fromkeys(want, 0)
    finally:
        store.run("delete_namespace", {"ns": other})
