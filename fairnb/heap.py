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

#: searches shorter than this (seconds) leave the heap as it is: trimming costs milliseconds, and they free little
RELEASE_AFTER_S = 1.0


def _malloc_trim():
    """glibc's ``malloc_trim`` as this process links it, or None (not glibc: macOS, Windows, musl).

    Looked up once, at import, in the symbols the process already has (``dlopen(NULL)``): no ``ldconfig``
    subprocess (``ctypes.util.find_library`` starts one), which a Ctrl-C could interrupt as a search ends, and
    no second copy of a C library whose ``malloc_trim`` would work on another allocator's state."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):    # no process symbol table (Windows), or no malloc_trim
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


_TRIM = _malloc_trim()


def release() -> bool:
    """Return the C heap's free pages to the system; whether the C library could be asked (glibc only)."""
    if _TRIM is None:
        return False
    _TRIM(0)
    return True
