"""Re-embedding: move a namespace into another embedder's space (``mragent reembed``).

:mod:`~mragent.apps.reembed.rewrite` runs it (resumable, audited);
:mod:`~mragent.apps.reembed.pages` rewrites the cues and contents page by page;
:mod:`~mragent.apps.reembed.index` keeps the database's shared vector index
answering when the dimension changes. Not to be confused with ``mragent migrate``,
the schema upgrade (:mod:`mragent.apps.migrate`).
"""
