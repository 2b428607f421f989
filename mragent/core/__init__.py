"""The core: the pieces a reconstruction is made of.

Errors, file helpers and paths, text utilities, the genome, the read view,
the named-query registry, graph stores (:mod:`mragent.core.store`),
embedders, the corpus format, extraction, and the retrieval stages
(:mod:`mragent.core.retrieval`).

The bottom layer: it imports no other mragent package.
"""
