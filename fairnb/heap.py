"""Give the C heap's free memory back to the operating system (glibc's ``malloc_trim``), and keep it while a search
runs (``steady``).

The large temporary arrays of TensorFlow and numpy are freed to the C allocator, which keeps their pages: on
Linux with glibc a kernel's resident memory grows with every image search and retraining (tutorial 05: about
200 MB per search over 640 faces) although nothing holds that memory any more. ``release()`` asks glibc to
return the free pages, as Dask's documentation advises for its workers ("memory not released back to the
OS"); elsewhere it does nothing. Searches that ran a second or more and retrainings call it when they end.

``steady()`` does the opposite while a search runs: glibc hands blocks above a threshold to ``mmap`` and trims the
heap's top when more than twice that lies free there, and the threshold follows the largest block freed so far
(mallopt(3), "dynamic mmap threshold"). A process that never freed a block above ~2 MB trims and faults back the
model's ~1 MB temporaries on every batch: random search on the demo model took 1.5x the CPU, with 100x the page
faults, of the same search in a process that had freed one larger block (issue 39). The engine calls it when a
search starts; searches that ran a second or more still ``release()`` the pages when they end.

>>> release() in (True, False), steady() in (True, False)
(True, True)
"""
from __future__ import annotations

import ctypes

#: searches shorter than this (seconds) leave the heap as it is: trimming costs milliseconds, and they free little
RELEASE_AFTER_S = 1.0

#: ``steady`` frees one block of this many bytes: glibc then serves smaller blocks from its heap and trims the top only
#: above twice this; under glibc's ceiling for the rule, 32 MiB
STEADY_BYTES = 16 * 2**20


def _libc(name: str, argtypes, restype):
    """The C library's function ``name`` as this process links it, or None (not there: ``malloc_trim`` outside glibc,
    on macOS, Windows, musl).

    Looked up once, at import, in the symbols the process already has (``dlopen(NULL)``): no ``ldconfig``
    subprocess (``ctypes.util.find_library`` starts one), which a Ctrl-C could interrupt as a search ends, and
    no second copy of a C library whose functions would work on another allocator's state."""
    try:
        function = getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError, TypeError):    # no process symbol table (Windows), or no such function
        return None
    function.argtypes, function.restype = argtypes, restype
    return function


_TRIM = _libc("malloc_trim", [ctypes.c_size_t], ctypes.c_int)
_MALLOC = _libc("malloc", [ctypes.c_size_t], ctypes.c_void_p) if _TRIM is not None else None    # glibc only
_FREE = _libc("free", [ctypes.c_void_p], None) if _TRIM is not None else None
_steadied = False



def release() -> bool:
    """Return the C heap's free pages to the system; whether the C library could be asked (glibc only)."""
    if _TRIM is None:
        return False
    _TRIM(0)
    return True


def steady() -> bool:
    """Raise glibc's mmap and trim thresholds to those that freeing a ``STEADY_BYTES`` block gives, once per process,
    by freeing such a block (allocated, never touched: no memory is used); whether the C library could be asked.
    A process whose thresholds are already higher keeps them."""
    global _steadied
    if _MALLOC is None or _FREE is None:
        return False
    if not _steadied:
        _steadied = True
        _FREE(_MALLOC(STEADY_BYTES))
    return True
