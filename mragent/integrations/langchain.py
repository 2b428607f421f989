"""A LangChain retriever over an mragent session (``mragent[langchain]``).

:class:`MragentRetriever` is a ``BaseRetriever``: each query is a reconstruction
through the session (cue search, traversal, rerank), and each memory handed to
synthesis becomes a ``Document`` whose metadata carries its provenance::

    from mragent import open_memory
    from mragent.integrations.langchain import MragentRetriever

    retriever = MragentRetriever(session=open_memory("team", principal="agent:scout"))
    chain = {"context": retriever | format_docs, "question": RunnablePassthrough()} | prompt

The read view is the session's: accepted memories of its read scopes, unless
``include_pending``; a forgotten memory is in no result. The async form runs the
same reconstruction on a worker thread (the session serialises its calls).
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from mragent.facade.results import ContextItem
from mragent.facade.session import MemorySession

METADATA = (
    "id", "lineage", "title", "trust", "scope", "principal", "source", "score", "recorded_at",
)  # fmt: skip


class MragentRetriever(BaseRetriever):
    """Documents reconstructed from memory, best first.

    Attributes:
        session: The session read through (its principal's grants bound what is read).
        scopes: Scopes to read (None: the session's read scopes).
        include_pending: Read pending memories too.
        k: At most this many documents (None: every memory the reconstruction keeps,
            up to the genome's ``maxContent``).
    """

    session: MemorySession
    scopes: list[str] | None = None
    include_pending: bool = False
    k: int | None = None

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        found = self.session.recall(query, scopes=self.scopes, include_pending=self.include_pending)
        items = found.context if self.k is None else found.context[: self.k]
        return [_document(item) for item in items]


def _document(item: ContextItem) -> Document:
    """A memory as a Document: its text, and in metadata its id, lineage, trust, writer
    (``principal``), source, score and record time (``recorded_at``, epoch seconds)."""
    metadata: dict[str, Any] = {name: getattr(item, name) for name in METADATA}
    return Document(page_content=item.text, metadata=metadata, id=item.id)


__all__ = ["MragentRetriever"]
