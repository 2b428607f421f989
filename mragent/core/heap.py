"""Give a long write's freed memory back to the system (glibc's ``malloc``).

glibc serves a large allocation (128 KB at first) from a mapping of its own,
unmapped when freed, and everything smaller from its heap, which shrinks only from
the top. Each time a mapped block is freed, it raises that threshold to the block's
size, up to 32 MB, so that a program freeing large blocks often stops paying for
mappings. An ingest frees such blocks all along (the co-occurrence arrays of the
check pass, a batch's megabytes of encoded parameters), so after the first few every
one of them comes from the heap, and the holes they leave keep the heap large: at the
end of a million contents' check pass the process held 493 MB of RSS this way, and
360 MB with the threshold held at 1 MB. (The pass's own peak, which comes before
its end, was 452 MB against 454: ``benchmarks/ingest_check.py``.)

:func:`hold_mmap_threshold` holds it. ``mragent ingest`` calls it; a program of its
own ingesting millions of contents can too, or start with ``MALLOC_MMAP_THRESHOLD_``
set. Not for a long-lived reader: there the raised threshold saves a mapping per
query-sized array.
"""

from __future__ import annotations

import ctypes
import os
import sys

M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameter (``malloc.h``)."""
MMAP_THRESHOLD = 1 << 20
"""Allocations of this many bytes or more get a mapping of their own."""


def hold_mmap_threshold(size: int = MMAP_THRESHOLD) -> bool:
    """Fix glibc's mapping threshold at ``size`` bytes for the rest of this process
    (setting it turns its raising off).

    Returns:
        Whether it was set: not where the C library has no such setting (macOS,
        musl, Windows), nor when ``MALLOC_MMAP_THRESHOLD_`` already chose one.
    """
    if not sys.platform.startswith("linux") or "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return False
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is None:
        return False
    # musl's mallopt exists and does nothing: it returns 0, as glibc does on a refusal.
    return bool(mallopt(M_MMAP_THRESHOLD, size))
