"""Small corpora written for the tests."""

from __future__ import annotations

from typing import Any

from mragent.core.corpus import Corpus
from mragent.core.store.base import GraphStore
from mragent.memory.audit import AuditLog
from mragent.memory.ingest import IngestReport
from mragent.memory.ingest import ingest as ingest_corpus
from mragent.memory.principal import Principal

# A chain Acme -> Jane Roe -> Lisbon, plus a distractor; tags are explicit so the
# expected graph (and the traversal's rows) can be written down by hand.
CHAIN: dict[str, Any] = {
    "format": "mragent-corpus/1",
    "contents": [
        {
            "id": "acme",
            "title": "Acme",
            "tags": ["Acme", "Jane Roe"],
            "cues": [],
            "text": "Acme was founded by Jane Roe.",
        },
        {
            "id": "roe",
            "title": "Jane Roe",
            "tags": ["Jane Roe", "Lisbon"],
            "cues": [],
            "text": "Jane Roe was born in Lisbon.",
        },
        {
            "id": "lisbon",
            "title": "Lisbon",
            "tags": ["Lisbon"],
            "cues": [],
            "text": "Lisbon lies on the Tagus.",
        },
        {
            "id": "zeta",
            "title": "Zeta",
            "tags": ["Zeta"],
            "cues": [],
            "text": "Zeta is unrelated to the rest.",
        },
    ],
    "questions": [
        {
            "id": "q1",
            "question": "Where was the founder of Acme born?",
            "answer": "Lisbon",
            "supporting": ["acme", "roe"],
            "kind": "bridge-2",
        },
    ],
}

INJECTIONS = [
    "x'}) DETACH DELETE n //",
    'x"}) MATCH (n) DETACH DELETE n //',
    "`Content`) DETACH DELETE x //",
    "$ns } RETURN 1; MATCH (n) DELETE n",
    "{{depth}} */ CALL db.clearQueryCaches() /*",
    "Robert'); DROP TABLE memories;--",
]


TESTER = Principal("system", "tests")
EVER = 1 << 62  # a change feed's upper version bound that takes every version


def feed_page(
    store: GraphStore,
    query: str,
    ns: str,
    *scopes: str,
    since: int = -1,
    limit: int = 10_000,
    **extra: Any,
) -> list[dict[str, Any]]:
    """The first page of a change-feed query (``index_cues``, ``index_contents`` with
    ``vectors``) over every version after ``since``, of ``scopes`` (default ``shared``)."""
    params = {"ns": ns, "scopes": list(scopes or ("shared",)), "since": since, "upto": EVER}
    return store.run(query, {**params, "after": "", "limit": limit, **extra})


def ingest(store: GraphStore, corpus: Corpus, ns: str, **kwargs: Any) -> IngestReport:
    """:func:`mragent.memory.ingest.ingest` as the test principal, audited to the test's own log
    (``$MRAGENT_AUDIT_LOG``, set per test by conftest)."""
    kwargs.setdefault("principal", TESTER)
    kwargs.setdefault("audit", AuditLog())
    return ingest_corpus(store, corpus, ns, **kwargs)
