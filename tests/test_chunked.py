"""Namespace-wide writes (ranks, deletes, migrations) in bounded pieces.

On Neo4j deletes and migrations run as ``CALL { ... } IN TRANSACTIONS OF n ROWS``
(the query files under ``cypher/engines/neo4j/``) so a large namespace fits the
default transaction memory limit. The chunk size here is a few rows, so every
statement runs many chunks; the results must equal the single-statement rule on every
engine, and on Neo4j the number of transactions started shows that the chunks really
were separate. A namespace's ranks are written in statements of a bounded number of
edges (``ranks.rank_namespace``), here a few dozen.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

from mragent.apps.migrate import migrate_namespace
from mragent.apps.synthetic import generate
from mragent.core.store.base import GraphStore
from mragent.memory import ranks
from mragent.memory.audit import AuditLog
from mragent.memory.ingest import namespace_stats
from mragent.memory.principal import Principal
from tests.fixtures import ingest
from tests.test_migrate import _STRIP

CHUNK = 4
CONTENTS = 60


def _transaction_counter(store: GraphStore) -> int | None:
    """Neo4j's per-database transaction sequence number (None on other engines)."""
    if store.capabilities.engine != "neo4j":
        return None
    rows = store._execute(
        "transaction_counter",
        "SHOW TRANSACTIONS YIELD transactionId, currentQuery "
        "WHERE currentQuery CONTAINS 'transaction_counter' "
        "RETURN transactionId // transaction_counter",
        {},
    )
    return int(str(rows[0]["transactionId"]).rsplit("-", 1)[1])


def _transactions_of(store: GraphStore, name: str, ns: str) -> tuple[list[dict], int | None]:
    """Run ``name`` on ``ns``; its rows and (Neo4j) how many transactions it started."""
    before = _transaction_counter(store)
    rows = store.run(name, {"ns": ns})
    after = _transaction_counter(store)
    # The counter query itself takes one number.
    return rows, None if before is None or after is None else after - before - 1


def _expected_ranks(edges: list[dict]) -> dict[str, int]:
    """The rank rule written out: per source, weight descending, then the target's name."""
    by_source: dict[str, list[dict]] = defaultdict(list)
    for edge in edges:
        by_source[edge["src"]].append(edge)
    ranks = {}
    for group in by_source.values():
        group.sort(key=lambda e: (-e["weight"], e["dst"]))
        ranks.update({edge["edge"]: i for i, edge in enumerate(group, start=1)})
    return ranks


_LINKS = (
    "MATCH (s)-[r:LINKED_TO]->(t:Tag) WHERE s.ns = $ns AND t.ns = $ns "
    "RETURN s.id AS src, t.name AS dst, r.weight AS weight, r.rank AS rank, "
    "s.scope AS scope, s.id + '>' + t.id AS edge"
)
_REFS = (
    "MATCH (t:Tag)-[r:REFERENCES]->(m:Content) WHERE t.ns = $ns AND m.ns = $ns "
    "RETURN t.id AS src, m.key AS dst, r.weight AS weight, r.rank_all AS rank, "
    "r.rank AS accepted, t.scope AS scope, t.id + '>' + m.id AS edge"
)


@pytest.fixture
def chunked(store: GraphStore) -> GraphStore:
    store.chunk_rows = CHUNK
    return store


def test_every_scope_of_a_namespace_is_ranked_by_the_rank_rule(
    chunked: GraphStore, ns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import or a migration re-ranks the whole namespace (``rank_namespace``):
    every scope's nodes, in statements of bounded size, each by the rank rule."""
    ingest(chunked, generate(CONTENTS), ns)
    ingest(chunked, generate(CONTENTS // 2), ns, scope="team:b")
    for edges_query in (_LINKS, _REFS):
        chunked._execute(
            "scramble", edges_query.split(" RETURN ")[0] + " SET r.rank = -1", {"ns": ns}
        )
    monkeypatch.setattr(ranks, "EDGE_BUDGET", 40)
    ranks.rank_namespace(chunked, ns)
    for edges_query in (_LINKS, _REFS):
        edges = chunked._execute("edges", edges_query, {"ns": ns})
        assert len({edge["scope"] for edge in edges}) == 2
        assert len(edges) > 100
        assert {edge["edge"]: edge["rank"] for edge in edges} == _expected_ranks(edges)
        if edges_query is _REFS:
            assert all(edge["accepted"] == edge["rank"] for edge in edges)


def test_reference_ranks_count_only_the_edges_each_view_may_read(
    chunked: GraphStore, ns: str
) -> None:
    """rank counts accepted current contents, rank_pending pending ones too, rank_all
    every edge; an edge outside a view's set has no rank in it."""
    ingest(chunked, generate(CONTENTS), ns)
    keys = [
        row["key"]
        for row in chunked._execute(
            "keys",
            "MATCH (m:Content) WHERE m.ns = $ns RETURN m.key AS key ORDER BY key",
            {"ns": ns},
        )
    ]
    marks = {
        "SET m.trust = 'pending'": keys[0::5],
        "SET m.trust = 'rejected'": keys[1::5],
        "SET m.forgotten_at = 1.0": keys[2::7],
        "SET m.superseded_at = 1.0": keys[3::11],
    }
    for statement, marked in marks.items():
        chunked._execute(
            "mark",
            f"MATCH (m:Content) WHERE m.ns = $ns AND m.key IN $keys {statement}",
            {"ns": ns, "keys": marked},
        )
    ranks.rank_namespace(chunked, ns)
    edges = chunked._execute(
        "refs",
        "MATCH (t:Tag)-[r:REFERENCES]->(m:Content) WHERE t.ns = $ns AND m.ns = $ns "
        "RETURN t.id AS src, m.key AS dst, r.weight AS weight, r.rank_all AS rank_all, "
        "r.rank AS rank, r.rank_pending AS rank_pending, m.trust AS trust, "
        "m.forgotten_at IS NULL AND m.superseded_at IS NULL AS current, "
        "t.id + '>' + m.id AS edge",
        {"ns": ns},
    )
    trusts = {edge["trust"] for edge in edges}
    assert {"accepted", "pending", "rejected"} <= trusts
    assert not all(edge["current"] for edge in edges)
    readable = {
        "rank_all": lambda edge: True,
        "rank": lambda edge: edge["current"] and edge["trust"] == "accepted",
        "rank_pending": lambda edge: edge["current"] and edge["trust"] in ("accepted", "pending"),
    }
    for rank, admits in readable.items():
        expected = _expected_ranks([edge for edge in edges if admits(edge)])
        assert {edge["edge"]: edge[rank] for edge in edges} == {
            edge["edge"]: expected.get(edge["edge"]) for edge in edges
        }, rank


def test_a_namespace_is_deleted_in_chunks_of_edges_then_nodes(chunked: GraphStore, ns: str) -> None:
    """A transaction's memory is the edges it deletes, and a hub tag's grow with the
    memory: on Neo4j every edge is deleted in chunks of its own before the nodes, so
    no chunk holds a whole hub. An edge entering the namespace from outside goes with
    it; the node it leaves stays."""
    ingest(chunked, generate(CONTENTS), ns)
    outside = ns + "-outside"
    chunked._execute(
        "outside",
        "MATCH (t:Tag) WHERE t.ns = $ns WITH t LIMIT 1 "
        "CREATE (:Probe {ns: $outside})-[:LINKED_TO]->(t)",
        {"ns": ns, "outside": outside},
    )
    stats = namespace_stats(chunked, ns)
    nodes = stats["cues"] + stats["tags"] + stats["contents"]
    (counted,) = chunked._execute(
        "edges", "MATCH (s)-[r]->() WHERE s.ns = $ns RETURN count(r) AS n", {"ns": ns}
    )
    assert counted["n"] > 2 * nodes  # more edges than nodes: chunking nodes is not enough
    rows, transactions = _transactions_of(chunked, "delete_namespace", ns)
    # Every node of the namespace, its MemorySpace included.
    assert rows[0]["deleted"] == nodes + 1
    left = (
        "MATCH (n) WHERE n.ns = $ns OPTIONAL MATCH (n)-[r]-() RETURN count(n) AS n, count(r) AS r"
    )
    assert chunked._execute("left", left, {"ns": ns}) == [{"n": 0, "r": 0}]
    assert chunked._execute("left", left, {"ns": outside}) == [{"n": 1, "r": 0}]
    chunked._execute("drop", "MATCH (n) WHERE n.ns = $ns DELETE n", {"ns": outside})
    if transactions is not None:
        assert transactions >= (counted["n"] + nodes) // CHUNK


def test_the_neo4j_delete_never_buffers_the_edges(store: GraphStore, ns: str) -> None:
    """Neo4j's planner buffers a scan whole (an Eager operator) where it fears a read
    meets a delete; over the edges that would hold every edge of the namespace in one
    transaction, however small the chunks. The plan, read over a populated namespace
    (the planner's choice follows the store's statistics), buffers no edge."""
    if store.capabilities.engine != "neo4j":
        pytest.skip("the chunked delete is Neo4j's form")
    ingest(store, generate(CONTENTS), ns)
    text, params = store.prepare("delete_namespace", {"ns": ns}, {})
    driver = store._driver  # type: ignore[attr-defined]
    plan = driver.execute_query("EXPLAIN " + text, params).summary.plan
    operators: list[tuple[str, str]] = []

    def walk(operator: dict) -> None:
        operators.append((operator["operatorType"], operator["args"].get("Details", "")))
        for child in operator.get("children", []):
            walk(child)

    walk(plan)
    assert [kind for kind, _ in operators].count("TransactionForeach@neo4j") == 2
    buffered = [details for kind, details in operators if kind.startswith("Eager")]
    assert not [details for details in buffered if "variable: r " in details]


def test_a_legacy_namespace_is_migrated_in_chunks(chunked: GraphStore, ns: str) -> None:
    ingest(chunked, generate(CONTENTS), ns)
    for statement in _STRIP:  # what an mragent before provenance and versions left
        chunked._execute("legacy", statement, {"ns": ns})
    before = namespace_stats(chunked, ns)
    start = _transaction_counter(chunked)
    report = migrate_namespace(chunked, ns, principal=Principal("human", "ana"), audit=AuditLog())
    end = _transaction_counter(chunked)
    assert (report.cues, report.tags, report.contents) == (
        before["cues"],
        before["tags"],
        before["contents"],
    )
    unstamped = chunked._execute(
        "unstamped",
        "MATCH (n) WHERE n.ns = $ns AND (n:Cue OR n:Content) "
        "AND (n.v IS NULL OR n.scope IS NULL) RETURN count(n) AS n",
        {"ns": ns},
    )
    assert unstamped == [{"n": 0}]
    if start is not None and end is not None:
        nodes = before["cues"] + before["tags"] + before["contents"]
        assert end - start > nodes // CHUNK
