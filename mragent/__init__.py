"""mragent: reconstructive graph memory for LLM agents.

A memory is a Cue -> Tag -> Content graph in a real graph database; questions
are answered by hybrid cue search, a Cypher traversal, rerank and synthesis.

The subpackages are layers, each importing only the ones before it
(``tests/test_layers.py`` fails on an upward import):

* :mod:`mragent.core`: genome, read view, named queries, graph stores,
  embeddings, corpus format, extraction and the retrieval stages.
* :mod:`mragent.memory`: the trust layer: principals, records, the audit log,
  ingest, the writer (:class:`~mragent.memory.writer.MemoryWriter`) and the reader
  (:class:`~mragent.memory.reader.MemoryReader`).
* :mod:`mragent.apps`: evaluation, bench, negative evaluation, datasets,
  explain and its views, export/import, re-embedding, schema migration.
* :mod:`mragent.evolution`: NSGA-II over the genome, the acceptance gate, reports.
* :mod:`mragent.facade`: the agents' facade, re-exported here.
* :mod:`mragent.integrations`: over the facade, a LangGraph store and a LangChain
  retriever (each behind its extra) and the coding-agent hooks.
* :mod:`mragent.mcp_server`: the MCP server on the official SDK.
* :mod:`mragent.cli`: the ``mragent`` command line on top.

Agents start here::

    from mragent import open_memory

    with open_memory("team", principal="agent:scout") as memory:
        memory.remember("The build server is in Oslo.")
        print(memory.recall("Where is the build server?").answer)

The layers below stay public for everything else. The names above are
imported on first use, so ``import mragent`` (and with it ``mragent --help``)
loads none of the layers.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mragent.facade import (
        ContextItem,
        Forgotten,
        MemorySession,
        Recall,
        ReviewSession,
        Written,
        open_memory,
        open_review,
    )
    from mragent.memory.principal import Principal
    from mragent.memory.records import MemoryRecord

__version__ = "0.1.0"

__all__ = [
    "ContextItem",
    "Forgotten",
    "MemoryRecord",
    "MemorySession",
    "Principal",
    "Recall",
    "ReviewSession",
    "Written",
    "__version__",
    "open_memory",
    "open_review",
]

# Where each re-exported name lives; imported on first access (PEP 562).
_EXPORTS = {
    "ContextItem": "mragent.facade",
    "Forgotten": "mragent.facade",
    "MemorySession": "mragent.facade",
    "Recall": "mragent.facade",
    "ReviewSession": "mragent.facade",
    "Written": "mragent.facade",
    "open_memory": "mragent.facade",
    "open_review": "mragent.facade",
    "Principal": "mragent.memory.principal",
    "MemoryRecord": "mragent.memory.records",
}


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'mragent' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
