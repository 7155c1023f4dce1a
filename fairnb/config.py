"""Process-wide settings.

``result_memory``: the bytes a search's Result may hold (``Result.nbytes``: its pairs, unique counters and
distinct-input tallies; about 140 bytes a pair on Adult's twelve integer codes). A search whose Result
reaches it ends after the batch that reached it, with status ``"budget"`` ("memory cap of 2.0 GB reached"),
keeps every pair found, and warns with the number of pairs kept: a long search on a fast model (GRFT finds
millions of pairs a minute on a decision tree) stops before the operating system's out-of-memory killer ends
the process and loses them all. ``None`` (the default) is ``$FAIRNB_RESULT_MEMORY`` (bytes, e.g. ``4e9``) when
set, else a quarter of the memory the process may use (the machine's, or its container's limit when that is
lower): at its peak, while it joins its pairs and the caller reads them, a process needs about three times its
Result's ``nbytes``. Set a number of bytes, or ``float("inf")`` for no cap; a search's ``max_found`` bounds the
pairs by count instead.

>>> import fairnb.config
>>> fairnb.config.result_memory = 5e8
>>> fairnb.config.result_memory_cap()
500000000.0
>>> fairnb.config.result_memory = None
"""
from __future__ import annotations

import math
import os
from pathlib import Path

#: bytes a search's Result may hold; None: ``$FAIRNB_RESULT_MEMORY``, else a quarter of the process's memory
result_memory: float | None = None

_CGROUP_LIMITS = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")


def result_memory_cap() -> float:
    """The bytes a search's Result may hold now (``result_memory``; ``inf``: no cap)."""
    value, where = result_memory, "fairnb.config.result_memory"
    if value is None and os.environ.get("FAIRNB_RESULT_MEMORY"):
        value, where = os.environ["FAIRNB_RESULT_MEMORY"], "$FAIRNB_RESULT_MEMORY"
    if value is None:
        memory = process_memory()
        return memory / 4 if memory else math.inf
    try:
        cap = math.nan if isinstance(value, bool) else float(value)    # True is 1 byte, not "a cap, please"
    except (TypeError, ValueError):
        cap = math.nan
    if not cap > 0:
        raise ValueError(f"{where} = {value!r}: give the bytes a search's Result may hold, a positive number "
                         "(float('inf'): no cap)")
    return cap


def process_memory() -> int | None:
    """The bytes of memory this process may use: the machine's, or its container's limit (cgroup v1 or v2)
    when that is lower; None when unknown (no ``sysconf``, e.g. on Windows).

    >>> process_memory() is None or process_memory() > 0
    True
    """
    try:
        machine = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None
    limits = [machine]
    for path in _CGROUP_LIMITS:
        try:
            text = Path(path).read_text().strip()
        except OSError:
            continue
        if text.isdigit():           # "max": no limit
            limits.append(int(text))
    return min(limits)
