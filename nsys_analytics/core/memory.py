"""Handing freed memory back to the system between the phases of a long command."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools


def give_back_freed() -> None:
    """Return the C heap's free pages to the system (glibc's malloc_trim; nothing elsewhere).

    numpy's buffers under glibc's mmap threshold, which rises to 32 MB once such a buffer is freed, come from the
    heap, and freeing them leaves the pages with the process: after diagnose's pass at 50 M kernels the process
    kept about 450 MB it no longer used, which the rules' queries then added to."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim():
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):  # not glibc (musl, macOS): it has no malloc_trim
        return None
