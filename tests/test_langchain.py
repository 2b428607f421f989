"""The LangChain retriever on every engine: Documents with provenance in metadata, the
session's read view (an agent's memory waits for review, a forgotten one is gone), and
an LCEL chain composed around it, run without an LLM.

Skips without the ``langchain`` extra, unless ``MRAGENT_REQUIRE_BACKENDS`` names it.
"""

from __future__ import annotations

import asyncio

from mragent import open_memory, open_review
from mragent.core.store.base import GraphStore
from tests.conftest import optional_package

optional_package("langchain_core.retrievers", "langchain")

from langchain_core.documents import Document  # noqa: E402
from langchain_core.prompts import PromptTemplate  # noqa: E402
from langchain_core.runnables import RunnableLambda, RunnablePassthrough  # noqa: E402

from mragent.integrations.langchain import MragentRetriever  # noqa: E402

FACT = "The build server is in Oslo."
OTHER = "The coffee machine is on the third floor."
QUESTION = "Where is the build server?"


def _format(docs: list[Document]) -> str:
    return "\n".join(
        f"[{d.metadata['trust']} {d.metadata['principal']}] {d.page_content}" for d in docs
    )


def test_documents_carry_the_memorys_provenance(store: GraphStore, ns: str) -> None:
    session = open_memory(ns, principal="human:ana", store=store)
    written = session.remember(FACT, source="ops wiki", title="build server")
    session.remember(OTHER)
    docs = MragentRetriever(session=session, k=1).invoke(QUESTION)
    assert [d.page_content for d in docs] == [FACT]
    meta = docs[0].metadata
    assert docs[0].id == written.id
    assert (meta["id"], meta["lineage"], meta["trust"], meta["principal"], meta["source"]) == (
        written.id, written.id, "accepted", "human:ana", "ops wiki",
    )  # fmt: skip
    assert meta["scope"] == "shared" and meta["title"] == "build server"
    assert meta["score"] > 0 and meta["recorded_at"] > 0
    again = asyncio.run(MragentRetriever(session=session, k=1).ainvoke(QUESTION))
    assert [d.id for d in again] == [written.id]


def test_the_read_view_is_the_sessions(store: GraphStore, ns: str, agent_token: str) -> None:
    agent = open_memory(ns, token=agent_token, store=store)
    written = agent.remember(FACT)
    assert MragentRetriever(session=agent).invoke(QUESTION) == []
    pending = MragentRetriever(session=agent, include_pending=True).invoke(QUESTION)
    assert [d.metadata["trust"] for d in pending] == ["pending"]
    open_review(ns, store=store).accept(written.id)
    assert [d.id for d in MragentRetriever(session=agent).invoke(QUESTION)] == [written.id]
    agent.forget(written.id, reason="moved")
    for view in (False, True):
        assert MragentRetriever(session=agent, include_pending=view).invoke(QUESTION) == []


def test_an_lcel_chain_runs_around_the_retriever(store: GraphStore, ns: str) -> None:
    session = open_memory(ns, principal="human:ana", store=store)
    session.remember(FACT)
    session.remember(OTHER)
    prompt = PromptTemplate.from_template("Context:\n{context}\n\nQuestion: {question}")
    chain = (
        {
            "context": MragentRetriever(session=session, k=1) | _format,
            "question": RunnablePassthrough(),
        }
        | prompt
        | RunnableLambda(lambda value: value.to_string())
    )
    text = chain.invoke(QUESTION)
    assert text == f"Context:\n[accepted human:ana] {FACT}\n\nQuestion: {QUESTION}"
    assert chain.batch([QUESTION, "Where is the coffee machine?"])[1].count(OTHER) == 1
