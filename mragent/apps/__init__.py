"""Applications built on the memory.

Judging and evaluation, flat baselines, ``bench``, the negative evaluation,
dataset loaders, the synthetic corpus generator, ``explain`` with its HTML view
and stored traces, export/import, re-embedding and namespace migrations.

May import :mod:`mragent.core` and :mod:`mragent.memory`.
"""
