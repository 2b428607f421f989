"""A ``neo4j://`` URL (the routing driver a cluster needs) works unchanged.

Against a cluster the routing driver asks any member for the routing table and
sends each transaction to a member that can serve it; against a single server it
asks the same and gets that server. This runs the routing path end to end on the
single Neo4j server CI starts: the driver is the routing one, and a write, a
reconstruction and a read after the write behave as over ``bolt://``.
"""

from __future__ import annotations

import uuid

import neo4j
import pytest

from mragent.core.corpus import load_corpus, reference_corpus_path
from mragent.core.genome import Genome
from mragent.core.store import open_store
from mragent.memory.reader import MemoryReader
from tests.conftest import unavailable
from tests.fixtures import ingest

pytestmark = pytest.mark.backend


def test_a_routing_url_reads_and_writes_like_a_direct_one(
    engine_urls: dict[str, str | None],
) -> None:
    url = engine_urls["neo4j"]
    if url is None:
        unavailable("neo4j", "nothing answers at its URL and no Docker engine")
    routed = "neo4j://" + url.split("://", 1)[1]
    corpus = load_corpus(reference_corpus_path())
    ns = f"route-{uuid.uuid4().hex[:8]}"
    with open_store(routed) as store, open_store(url) as direct:
        assert isinstance(store._driver, neo4j.Neo4jDriver)  # the routing driver
        assert not isinstance(direct._driver, neo4j.Neo4jDriver)
        try:
            ingest(store, corpus, ns)
            question = corpus.questions[0]
            over_routing = MemoryReader(store, ns).reconstruct(question.question, Genome())
            over_bolt = MemoryReader(direct, ns).reconstruct(question.question, Genome())
            assert over_routing.retrieved_keys == over_bolt.retrieved_keys
            assert set(question.supporting) & set(over_routing.retrieved_keys)
        finally:
            store.run("delete_namespace", {"ns": ns})
