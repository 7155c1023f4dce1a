"""Give the C heap's free memory back to the operating system (glibc's ``malloc_trim``).

The large temporary arrays of TensorFlow and numpy are freed to the C allocator, which keeps their pages: on
Linux with glibc a kernel's resident memory grows with every image search and retraining (tutorial 05: about
200 MB per search over 640 faces) although nothing holds that memory any more. ``release()`` asks glibc to
return the free pages, as Dask's documentation advises for its workers ("memory not released back to the
OS"); elsewhere it does nothing. Searches that ran a second or more and retrainings call it when they end.

>>> release() in (True, False)
True
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools

#: searches shorter than this (seconds) leave the heap as it is: trimming costs milliseconds, and they free little
RELEASE_AFTER_S = 1.0


@functools.lru_cache(maxsize=1)
def _malloc_trim():
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):          # no C library found, or not glibc (macOS, Windows, musl)
        return None


def release() -> bool:
    """Return the C heap's free pages to the system; whether the C library could be asked (glibc only)."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
