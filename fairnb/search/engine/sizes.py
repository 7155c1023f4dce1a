"""Count parameters held to memory: a search refuses, before it allocates, a count whose arrays cannot fit.

A count parameter of a search (``n_train=10**12`` random inputs, a GA ``population`` of ``10**12``) that a method
must hold at once raises a ``ValueError`` naming the parameter, the memory it would need and the largest count that
fits, instead of numpy's bare ``MemoryError`` (or the operating system's out-of-memory killer). Counts that a
method can work through in pieces are chunked instead (to ``fairnb.oracle.MEMORY_BUDGET`` per piece) and need no
check. What fits is half the memory the process may use (``fairnb.config.process_memory``).

Example
-------
>>> try:
...     require_fits("aft", "n_train", 10**12, row_bytes=32 * 8, what="random inputs of 32 features")
... except ValueError as e:
...     print(str(e)[:71])
aft: n_train=1,000,000,000,000 would hold 256000.0 GB at once (random i
"""
from __future__ import annotations

from ... import config
from ...summaries import fmt_bytes


def require_fits(method: str, parameter: str, count: int, *, row_bytes: float, what: str) -> None:
    """Raise ``ValueError`` when ``count`` rows of ``row_bytes`` each need more than half the process's memory."""
    memory = config.process_memory()
    if memory is None:
        return
    allowed = memory / 2
    if count * row_bytes > allowed:
        raise ValueError(f"{method}: {parameter}={count:,} would hold {fmt_bytes(count * row_bytes)} at once ({what})"
                         f"; this process may use {fmt_bytes(memory)}: give {parameter} at most "
                         f"{int(allowed // max(row_bytes, 1)):,}")
