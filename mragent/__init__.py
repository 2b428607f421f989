"""mragent: reconstructive graph memory for LLM agents.

A memory is a Cue -> Tag -> Content graph in a real graph database; questions
are answered by hybrid cue search, a Cypher traversal, rerank and synthesis.

The subpackages are layers, each importing only the ones before it
(``tests/test_layers.py`` fails on an upward import):

* :mod:`mragent.core`: genome, read view, named queries, graph stores,
  embeddings, corpus format, extraction and the retrieval stages.
* :mod:`mragent.memory`: the trust layer: principals, records, the audit log,
  ingest, the writer (:class:`~mragent.memory.writer.Memories`) and the reader
  (:class:`~mragent.memory.reader.Memory`).
* :mod:`mragent.apps`: evaluation, bench, negative evaluation, datasets,
  explain and its views, export/import, re-embedding, migrations.
* :mod:`mragent.evolution`: NSGA-II over the genome, the acceptance gate, reports.
* :mod:`mragent.cli`: the ``mragent`` command line on top.

This module will become the agents' facade and may import any layer below the CLI.
"""

__version__ = "0.1.0"
