"""Applications built on the memory, one capability per module or package.

Flat modules: judging (``judge``) and evaluation (``evaluate``), flat baselines,
``bench``, abstention and its unanswerable variants, dataset loaders, the
synthetic corpus generator, and ``migrate`` (the schema upgrade of a namespace
written by an earlier mragent). Packages: ``transfer`` (export and import),
``reembed`` (moving a namespace to another embedder), ``negative`` (the negative
evaluation) and ``views`` (``explain``: its trace, terminal, JSON, HTML and
Neo4j Browser views, and stored traces).

May import :mod:`mragent.core` and :mod:`mragent.memory`.
"""
