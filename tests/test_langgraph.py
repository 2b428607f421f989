"""The LangGraph store on every engine: a compiled StateGraph whose plain-function nodes
put and search through ``store=``, review of an agent's puts, corrections, forgetting,
filters, pagination, namespaces and the async surface.

Skips without the ``langgraph`` extra, unless ``MRAGENT_REQUIRE_BACKENDS`` names it.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any, TypedDict

import pytest

from mragent import open_memory, open_review
from mragent.core.errors import WriteRefused
from mragent.core.store.base import GraphStore
from tests.conftest import optional_package

optional_package("langgraph.store.base", "langgraph")

from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.store.base import BaseStore, InvalidNamespaceError, PutOp  # noqa: E402

from mragent.integrations.langgraph import MAX_CONTENT, MragentStore  # noqa: E402

ANA = ("users", "ana")
PIZZA = {"text": "Ana likes pizza from Napoli.", "kind": "food", "stars": 5}
QUESTION = "What does Ana like?"


class State(TypedDict, total=False):
    facts: list[dict[str, Any]]
    question: str
    found: list[str]


def _remember(state: State, *, store: BaseStore) -> State:
    for i, fact in enumerate(state.get("facts", [])):
        store.put(ANA, f"fact-{i}", fact)
    return {}


def _recall(state: State, *, store: BaseStore) -> State:
    hits = store.search(ANA, query=state["question"], limit=3)
    return {"found": [hit.value["text"] for hit in hits]}


def _graph(store: BaseStore) -> Any:
    """A graph with no LLM: one node writes the facts, the next searches for them."""
    builder = StateGraph(State)
    builder.add_node("remember", _remember)
    builder.add_node("recall", _recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    return builder.compile(store=store)


def test_a_state_graph_puts_and_searches_through_the_store(store: GraphStore, ns: str) -> None:
    memory = MragentStore(open_memory(ns, principal="human:ana", store=store))
    out = _graph(memory).invoke({"facts": [PIZZA], "question": QUESTION})
    assert out["found"] == [PIZZA["text"]]
    item = memory.get(ANA, "fact-0")
    assert item is not None and item.value == PIZZA and item.namespace == ANA
    assert item.created_at == item.updated_at
    hit = memory.search(ANA, query=QUESTION)[0]
    assert (hit.key, hit.value) == ("fact-0", PIZZA) and hit.score is not None and hit.score > 0


def test_an_agents_put_waits_for_a_human_and_a_delete_forgets(
    store: GraphStore, ns: str, agent_token: str
) -> None:
    agent = MragentStore(open_memory(ns, token=agent_token, store=store))
    out = _graph(agent).invoke({"facts": [PIZZA], "question": QUESTION})
    assert out["found"] == []  # pending: invisible to the default read view
    assert agent.get(ANA, "fact-0") is None and agent.search(ANA) == []
    seen = MragentStore(open_memory(ns, token=agent_token, store=store), include_pending=True)
    assert seen.get(ANA, "fact-0") is not None
    human = open_review(ns, store=store)  # the OS user's human:ana
    (pending,) = human.pending()
    human.accept(pending["id"])
    assert _graph(agent).invoke({"question": QUESTION})["found"] == [PIZZA["text"]]

    agent.delete(ANA, "fact-0")
    for reader in (agent, seen, MragentStore(human, include_pending=True)):
        assert reader.get(ANA, "fact-0") is None
        assert reader.search(ANA) == [] and reader.search(ANA, query=QUESTION) == []
        assert reader.list_namespaces() == []
    versions = human.history(pending["id"])
    assert [v.forgotten for v in versions] == [True]  # history keeps the tombstone


def test_a_put_of_an_existing_key_is_a_correction(store: GraphStore, ns: str) -> None:
    session = open_memory(ns, principal="human:ana", store=store)
    memory = MragentStore(session)
    memory.put(ANA, "food", PIZZA)
    first = memory.get(ANA, "food")
    memory.put(ANA, "food", PIZZA)  # the same value: nothing written
    sushi = {**PIZZA, "text": "Ana likes sushi from Osaka."}
    memory.put(ANA, "food", sushi)
    now = memory.get(ANA, "food")
    assert first is not None and now is not None and now.value == sushi
    assert now.created_at == first.created_at and now.updated_at > first.updated_at
    (found,) = session.by_source('langgraph:["users","ana","food"]')
    versions = session.history(found.id)
    assert [v.current for v in versions] == [False, True]
    assert len({v.lineage for v in versions}) == 1
    assert [h.value["text"] for h in memory.search(ANA, query="Where is the sushi from?")] == [
        sushi["text"]
    ]


def test_an_agents_correction_of_an_accepted_item_waits_for_review(
    store: GraphStore, ns: str, agent_token: str
) -> None:
    human = open_review(ns, store=store)
    MragentStore(human).put(ANA, "food", PIZZA)
    agent = MragentStore(open_memory(ns, token=agent_token, store=store))
    sushi = {**PIZZA, "text": "Ana likes sushi from Osaka."}
    agent.put(ANA, "food", sushi)
    assert agent.get(ANA, "food").value == PIZZA  # type: ignore[union-attr]
    assert MragentStore(human, include_pending=True).get(ANA, "food").value == sushi  # type: ignore[union-attr]
    (proposal,) = human.pending()
    human.accept(proposal["id"])
    assert agent.get(ANA, "food").value == sushi  # type: ignore[union-attr]
    assert [i.value for i in agent.search(ANA)] == [sushi]


def test_filters_limits_offsets_and_namespaces(store: GraphStore, ns: str) -> None:
    memory = MragentStore(open_memory(ns, principal="human:ana", store=store))
    for stars in range(5):
        memory.put(
            ("users", "ana", "films"), f"film-{stars}", {"title": f"Film {stars}", "stars": stars}
        )
    memory.put(("users", "bob"), "food", {"text": "Bob likes soup.", "kind": "food"})
    memory.put(("teams", "ops"), "server", {"text": "The build server is in Oslo."})
    memory.put(("users", "ana"), "same", {"text": "Bob likes soup.", "kind": "food"})

    assert [i.key for i in memory.search(("users",), filter={"kind": "food"})] == ["same", "food"]
    good = memory.search(("users", "ana", "films"), filter={"stars": {"$gte": 3}})
    assert sorted(i.key for i in good) == ["film-3", "film-4"]
    assert [
        i.key
        for i in memory.search(
            ("users", "ana", "films"), filter={"stars": {"$ne": 0}, "title": "Film 2"}
        )
    ] == ["film-2"]
    newest = [i.key for i in memory.search(("users", "ana", "films"))]
    assert newest == ["film-4", "film-3", "film-2", "film-1", "film-0"]
    assert [i.key for i in memory.search(("users", "ana", "films"), limit=2, offset=1)] == [
        "film-3",
        "film-2",
    ]
    assert memory.search(("user",)) == []  # a prefix is whole labels, not characters

    assert memory.list_namespaces() == [
        ("teams", "ops"),
        ("users", "ana"),
        ("users", "ana", "films"),
        ("users", "bob"),
    ]
    assert memory.list_namespaces(prefix=("users",), max_depth=2) == [
        ("users", "ana"),
        ("users", "bob"),
    ]
    assert memory.list_namespaces(suffix=("films",)) == [("users", "ana", "films")]
    assert memory.list_namespaces(prefix=("*", "ana")) == [
        ("users", "ana"),
        ("users", "ana", "films"),
    ]
    assert memory.list_namespaces(limit=1, offset=1) == [("users", "ana")]


def test_a_query_search_pages_through_every_item_under_the_prefix(
    store: GraphStore, ns: str
) -> None:
    memory = MragentStore(open_memory(ns, principal="human:ana", store=store))
    films = ("users", "ana", "films")
    count = MAX_CONTENT + 5  # more than one reconstruction hands back
    for i in range(count):
        memory.put(films, f"film-{i}", {"text": f"Ana watched film number {i}.", "n": i})
    memory.put(("users", "bob"), "film", {"text": "Bob watched film number 3."})
    query = "Which film did Ana watch?"
    every = memory.search(films, query=query, limit=count + 10)
    assert sorted(i.key for i in every) == sorted(f"film-{i}" for i in range(count))
    scored = [i for i in every if i.score is not None]
    assert 0 < len(scored) <= MAX_CONTENT and every[: len(scored)] == scored  # reached first
    pages = [memory.search(films, query=query, limit=10, offset=o) for o in (0, 10, 20)]
    assert [len(page) for page in pages] == [10, 10, 5]
    assert [i.key for page in pages for i in page] == [i.key for i in every]
    odd = memory.search(films, query=query, filter={"n": {"$gte": count - 2}}, limit=5)
    assert sorted(i.key for i in odd) == [f"film-{count - 2}", f"film-{count - 1}"]


def test_a_dotted_filter_key_reaches_a_nested_field(store: GraphStore, ns: str) -> None:
    memory = MragentStore(open_memory(ns, principal="human:ana", store=store))
    memory.put(("docs",), "nested", {"user": {"access-level": "high"}})
    memory.put(("docs",), "flat", {"user.access-level": "low"})
    assert [i.key for i in memory.search(("docs",), filter={"user.access-level": "high"})] == [
        "nested"
    ]
    assert [i.key for i in memory.search(("docs",), filter={"user.access-level": "low"})] == [
        "flat"
    ]


def test_a_forgotten_value_is_readmitted_only_when_asked(store: GraphStore, ns: str) -> None:
    session = open_memory(ns, principal="human:ana", store=store)
    memory = MragentStore(session)
    memory.put(ANA, "food", PIZZA)
    memory.delete(ANA, "food")
    with pytest.raises(WriteRefused, match="forgotten"):
        memory.put(ANA, "food", PIZZA)
    memory.put(ANA, "food", {**PIZZA, "stars": 4})  # a different value is a new memory
    MragentStore(session, readmit=True).put(ANA, "other", PIZZA)
    assert memory.get(ANA, "food").value["stars"] == 4  # type: ignore[union-attr]


def test_the_async_surface_and_the_namespace_rules(store: GraphStore, ns: str) -> None:
    memory = MragentStore(open_memory(ns, principal="human:ana", store=store))

    async def run() -> tuple[Any, Any]:
        await memory.aput(ANA, "food", PIZZA)
        got = await memory.aget(ANA, "food")
        hits = await memory.asearch(ANA, query=QUESTION)
        await memory.adelete(ANA, "food")
        return got, (hits, await memory.aget(ANA, "food"))

    got, (hits, gone) = asyncio.run(run())
    assert got.value == PIZZA and [h.key for h in hits] == ["food"] and gone is None
    for bad in (("users", "a.b"), ("users", "")):
        with pytest.raises(InvalidNamespaceError):
            memory.batch([PutOp(bad, "k", {"x": 1})])
    with pytest.raises(InvalidNamespaceError):
        memory.put(("langgraph",), "k", {"x": 1})
    with pytest.raises(NotImplementedError, match="TTL"):
        memory.put(ANA, "k", {"x": 1}, ttl=5)


SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "langgraph_store_tests.py"
UPSTREAM_STYLE_TEST = """
from langgraph.store.memory import InMemoryStore


def test_a_put_is_read_back_and_found() -> None:
    store = InMemoryStore()
    store.put(("users", "ana"), "food", {"text": "Ana likes pizza from Napoli."})
    assert store.get(("users", "ana"), "food").value["text"].startswith("Ana likes")
    assert [i.key for i in store.search(("users",), query="pizza")] == ["food"]
    assert type(store).__mro__[1].__name__ == "MragentStore"
"""


def test_the_upstream_test_runner_binds_in_memory_store_to_ours(
    tmp_path: Path, falkordb_url: str
) -> None:
    tests = tmp_path / "libs" / "checkpoint" / "tests"
    tests.mkdir(parents=True)
    (tests / "test_store.py").write_text(UPSTREAM_STYLE_TEST)
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path), "--db", falkordb_url, "-q"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "1 passed" in done.stdout


def test_the_upstream_test_runner_names_a_checkout_without_the_tests(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert f"{tmp_path}/libs/checkpoint/tests/test_store.py: no such file" in done.stderr
