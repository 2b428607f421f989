"""The Python facade, on every engine: one import, typed results, a context manager,
a long-lived reader that follows its own and others' writes, and review only for humans."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

import mragent
from mragent import MemorySession, Recall, ReviewSession, Written, open_memory, open_review
from mragent.core.errors import AccessDenied, ConfigError, WriteRefused
from mragent.core.store import open_store
from mragent.core.store.base import GraphStore
from mragent.facade.session import KEPT_READERS
from mragent.memory.credentials import editing, os_user
from mragent.memory.principal import Principal

FACT = "The build server is in Oslo."
QUESTION = "Where is the build server?"


def test_the_readme_example_runs(falkordb_url: str, ns_name: str) -> None:
    with open_memory(ns_name, principal="agent:scout", db=falkordb_url) as memory:
        memory.remember("The build server is in Oslo.")
        found = memory.recall("Where is the build server?", include_pending=True)
    assert found.answer == "Oslo"


def test_results_are_typed_with_ids_scores_trust_and_provenance(store: GraphStore, ns: str) -> None:
    with open_memory(ns, principal="human:ana", store=store) as memory:
        assert isinstance(memory, ReviewSession)
        written = memory.remember(FACT, source="ops wiki")
        assert isinstance(written, Written)
        assert (written.trust, written.scope, written.created) == ("accepted", "shared", True)
        found = memory.recall(QUESTION)
        assert isinstance(found, Recall) and found.answer == "Oslo" and not found.abstained
        item = found.context[0]
        assert (item.id, item.text, item.trust, item.principal, item.source) == (
            written.id, FACT, "accepted", "human:ana", "ops wiki",
        )  # fmt: skip
        assert item.score > 0 and item.lineage == written.id and item.recorded_at is not None
        assert set(found.timings_ms) == {"embed", "cue_search", "traversal", "synthesis"}
        assert found.model_dump()["context"][0]["id"] == written.id  # serialisable as is
        trace = memory.explain(QUESTION)
        assert trace["answer"]["text"] == "Oslo"
        assert any(c["id"] == written.id and c["fate"] == "kept" for c in trace["contents"])
        versions = memory.history(written.id)
        assert [v.id for v in versions] == [written.id]


def test_the_reader_follows_its_own_and_others_writes(store: GraphStore, ns: str) -> None:
    ana = open_memory(ns, principal="human:ana", store=store)
    bob = open_memory(ns, principal="human:bob", store=store)
    first = ana.remember(FACT)
    assert ana.recall(QUESTION).answer == "Oslo"  # the reader is built now and kept
    fixed = bob.correct(first.id, "The build server is in Bergen.")
    assert ana.recall(QUESTION).answer == "Bergen"  # someone else's write
    bob.forget(fixed.id, reason="decommissioned")
    assert ana.recall(QUESTION).context == []
    again = ana.remember("The build server is in Trondheim.")
    assert [item.id for item in ana.recall(QUESTION).context] == [again.id]  # its own write
    assert ana.recall(QUESTION).answer == "Trondheim"


def test_an_agent_session_has_no_review_trust_or_purge(store: GraphStore, ns: str) -> None:
    agent = open_memory(ns, principal="agent:scout", store=store)
    assert type(agent) is MemorySession
    for name in ("accept", "reject", "trust", "purge", "pending"):
        assert not hasattr(agent, name)
    written = agent.remember(FACT)
    assert written.trust == "pending"
    with pytest.raises(WriteRefused, match="human"):
        open_review(ns, principal="agent:scout", store=store)
    human = open_review(ns, principal="human:ana", store=store)
    assert [row["id"] for row in human.pending()] == [written.id]
    human.accept(written.id)
    assert agent.recall(QUESTION).answer == "Oslo"


def test_a_write_needs_a_principal(store: GraphStore, ns: str) -> None:
    reader = open_memory(ns, store=store)  # the implicit local human reads
    with pytest.raises(ConfigError, match="a write needs a principal"):
        reader.remember(FACT)


def test_with_credentials_the_token_decides(
    store: GraphStore, ns: str, credentials_path: Path
) -> None:
    with editing(credentials_path) as creds:
        creds.add(Principal("human", "ana"), read=["shared"], write=["shared"], user=os_user())
        token = creds.add(Principal("agent", "scout"), read=["shared"], write=["notes"])
    assert token is not None
    agent = open_memory(ns, token=token, store=store)
    assert str(agent.principal) == "agent:scout"
    with pytest.raises(AccessDenied, match="may not write scope 'shared'"):
        agent.remember(FACT)
    agent.remember(FACT, scope="notes")
    with pytest.raises(AccessDenied, match="may not read scope 'notes'"):
        agent.recall(QUESTION, scopes=["notes"])
    with pytest.raises(AccessDenied, match="not the authenticated principal"):
        open_memory(ns, token=token, principal="human:ana", store=store)
    human = open_memory(ns, store=store)  # no token: the OS user's human
    assert str(human.principal) == "human:ana" and isinstance(human, ReviewSession)


def test_a_revoked_agent_is_refused_by_its_open_session(
    store: GraphStore, ns: str, credentials_path: Path, agent_token: str, audit_log_path: Path
) -> None:
    """``principal revoke`` reaches a session opened long before: its next write and
    read are refused, and nothing more is written or audited as the agent."""
    agent = open_memory(ns, token=agent_token, store=store, scope="shared")
    agent.remember(FACT)
    with editing(credentials_path) as creds:
        creds.revoke(Principal("agent", "scout"))
    with pytest.raises(AccessDenied, match="revoked"):
        agent.remember("The build server moved to Bergen.")
    with pytest.raises(AccessDenied, match="revoked"):
        agent.recall(QUESTION)
    actions = [line for line in audit_log_path.read_text().splitlines() if '"remember"' in line]
    assert len(actions) == 1


def test_a_grant_taken_away_applies_to_an_open_session(
    store: GraphStore, ns: str, credentials_path: Path, agent_token: str
) -> None:
    agent = open_memory(ns, token=agent_token, store=store, scope="shared")
    agent.remember(FACT)
    with editing(credentials_path) as creds:
        scout = Principal("agent", "scout")
        entry = creds.entries[str(scout)]
        creds.entries[str(scout)] = entry.model_copy(update={"write": []})
    with pytest.raises(AccessDenied, match="may not write scope 'shared'"):
        agent.remember("The build server moved to Bergen.")


def test_the_package_exports_the_facade() -> None:
    assert mragent.open_memory is open_memory
    assert {"open_memory", "open_review", "Recall", "Written"} <= set(mragent.__all__)


@pytest.fixture
def ns_name(falkordb_url: str) -> Iterator[str]:
    name = f"t-facade-{uuid.uuid4().hex[:10]}"
    yield name
    with open_store(falkordb_url) as opened:
        opened.run("delete_namespace", {"ns": name})


def test_an_empty_namespace_answers_nothing(store: GraphStore, ns: str) -> None:
    memory = open_memory(ns, principal="agent:scout", store=store)
    found = memory.recall(QUESTION)
    assert found.abstained and found.answer is None and found.context == []
    memory.remember(FACT)
    assert memory.recall(QUESTION, include_pending=True).answer == "Oslo"


def test_readers_of_past_views_are_not_kept_without_bound(store: GraphStore, ns: str) -> None:
    memory = open_memory(ns, principal="human:ana", store=store)
    written = memory.remember(FACT)
    for step in range(10):
        memory.recall(QUESTION, as_of=memory.get(written.id).recorded_at + step)
    assert len(memory._readers) == KEPT_READERS


def test_a_namespace_deleted_under_a_session_answers_nothing(store: GraphStore, ns: str) -> None:
    memory = open_memory(ns, principal="human:ana", store=store)
    memory.remember(FACT)
    assert memory.recall(QUESTION).answer == "Oslo"  # the reader is built now and kept
    store.run("delete_namespace", {"ns": ns})
    found = memory.recall(QUESTION)
    assert found.abstained and found.answer is None and found.context == []
    memory.remember("The build server is in Bergen.")
    assert memory.recall(QUESTION).answer == "Bergen"
