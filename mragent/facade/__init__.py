"""The agents' facade: ``from mragent import open_memory``.

:func:`~mragent.facade.open.open_memory` authenticates the caller and returns a
session (:class:`~mragent.facade.session.MemorySession`; a human's is a
:class:`~mragent.facade.review.ReviewSession`) with remember, recall, correct,
forget, history and explain, typed results and a reader that stays current.

May import :mod:`mragent.core`, :mod:`mragent.memory` and :mod:`mragent.apps`;
the MCP server and the command line build on it.
"""

from mragent.facade.open import open_memory, open_review
from mragent.facade.results import ContextItem, Forgotten, Recall, Sourced, Written
from mragent.facade.review import ReviewSession
from mragent.facade.session import MemorySession

__all__ = [
    "ContextItem",
    "Forgotten",
    "MemorySession",
    "Recall",
    "ReviewSession",
    "Sourced",
    "Written",
    "open_memory",
    "open_review",
]
