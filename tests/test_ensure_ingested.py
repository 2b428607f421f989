"""The tool's own namespaces (bench, evolve, their variants): ingested once, and
completed when an earlier run was interrupted part way."""

from __future__ import annotations

import uuid
from dataclasses import replace

from mragent.apps.bench import ensure_ingested
from mragent.core.corpus import parse_corpus
from mragent.core.store.base import GraphStore
from mragent.memory.ingest import namespace_stats
from tests.fixtures import CHAIN, ingest


def test_a_part_written_namespace_is_completed_and_a_whole_one_left_alone(
    falkor_store: GraphStore,
) -> None:
    corpus = parse_corpus(CHAIN)
    ns = f"t-ensure-{uuid.uuid4().hex[:8]}"
    try:
        # What an ingest killed after its first batch leaves: some of the contents.
        ingest(falkor_store, replace(corpus, contents=corpus.contents[:2]), ns)
        assert namespace_stats(falkor_store, ns)["contents"] == 2
        assert ensure_ingested(falkor_store, corpus, ns)
        assert namespace_stats(falkor_store, ns)["contents"] == len(corpus.contents)
        assert not ensure_ingested(falkor_store, corpus, ns)
    finally:
        falkor_store.run("delete_namespace", {"ns": ns})
