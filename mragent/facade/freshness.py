"""Keep a long-lived reader current until the reader refreshes itself.

:class:`~mragent.memory.reader.Memory` snapshots a namespace's cue index and
contents when it is built. Every write to a namespace moves the namespace's
audit anchor (``MemorySpace.audit_seq``, ``audit_head``) at the end of its
audited block, whoever writes it and from whichever process, so one small query
per question tells whether the snapshot is stale; :class:`FreshReader` rebuilds
the reader then. This is the only place the facade compensates for a reader
that does not follow writes; it goes once the reader follows them itself.
"""

from __future__ import annotations

from collections.abc import Callable

from mragent.core.store.base import GraphStore
from mragent.memory.reader import Memory

Anchor = tuple[object, object]


class FreshReader:
    """One read view's reader, rebuilt whenever the namespace changed since it was built.

    Args:
        store: The store the namespace lives in.
        ns: The namespace.
        build: Builds the reader (called again after every change).
    """

    def __init__(self, store: GraphStore, ns: str, build: Callable[[], Memory]) -> None:
        self._store, self._ns, self._build = store, ns, build
        self._memory: Memory | None = None
        self._anchor: Anchor | None = None
        self.rebuilds = 0

    def current(self) -> Memory | None:
        """The reader, as of the namespace's last completed write; None while the
        namespace holds nothing (it has never been written)."""
        rows = self._store.run("get_space", {"ns": self._ns})
        if not rows:
            self._memory = self._anchor = None
            return None
        anchor = (rows[0]["audit_seq"], rows[0]["audit_head"])
        if self._memory is None or anchor != self._anchor:
            self._memory = self._build()
            self._anchor = anchor
            self.rebuilds += 1
        return self._memory
