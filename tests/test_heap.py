"""Holding glibc's mapping threshold keeps a large block out of the heap after glibc
would have raised it. Each case runs in a process of its own: the setting is the
whole process's."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys

import pytest

from mragent.core.heap import hold_mmap_threshold

_GLIBC = sys.platform.startswith("linux") and hasattr(ctypes.CDLL(None), "mallinfo2")

# Frees a 16 MB mapping (glibc then raises its threshold to 16 MB), allocates 8 MB and
# prints how many MB of mappings of their own that took.
_PROBE = """
import ctypes, sys
from mragent.core.heap import hold_mmap_threshold

class Info(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
        "uordblks", "fordblks", "keepcost")]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Info
held = hold_mmap_threshold() if sys.argv[1] == "hold" else False
freed = bytearray(16 << 20)
del freed
before = libc.mallinfo2().hblkhd
block = bytearray(8 << 20)
print(held, (libc.mallinfo2().hblkhd - before) >> 20)
"""


def _probe(mode: str, **env: str) -> tuple[str, int]:
    # Any malloc setting turns glibc's raising off (dask's sets MALLOC_TRIM_THRESHOLD_).
    environ = {
        k: v for k, v in os.environ.items() if not k.startswith(("MALLOC_", "GLIBC_TUNABLES"))
    }
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, mode],
        env={**environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    held, mapped = done.stdout.split()
    return held, int(mapped)


@pytest.mark.skipif(not _GLIBC, reason="glibc's malloc only (mallinfo2: glibc 2.33 or later)")
def test_a_held_threshold_keeps_a_large_block_mapped() -> None:
    assert _probe("raise") == ("False", 0)  # glibc's own rule: the 8 MB come from the heap
    assert _probe("hold") == ("True", 8)


@pytest.mark.skipif(not _GLIBC, reason="glibc's malloc only (mallinfo2: glibc 2.33 or later)")
def test_a_threshold_chosen_in_the_environment_stands() -> None:
    held, mapped = _probe("hold", MALLOC_MMAP_THRESHOLD_="33554432")
    assert held == "False" and mapped == 0


def test_elsewhere_nothing_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    assert hold_mmap_threshold() is False
