"""What a notebook's run cost: the seconds since it started and the kernel's peak memory, in words (the last cell of
every tutorial prints it, so a teacher reads a tutorial's time and memory on their own machine).

Example
-------
>>> import time
>>> footprint(time.monotonic() - 2.0).startswith("this run: 2 s")
True
"""
from __future__ import annotations

import sys
import time


def peak_memory_mib() -> float | None:
    """The largest resident memory this process has had so far, in MiB (None where the platform does not say:
    Windows). It only grows: after a second Run All it covers both."""
    try:
        import resource
    except ImportError:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024     # bytes on macOS, KiB on Linux


def footprint(started: float) -> str:
    """``"this run: 95 s; the kernel's peak memory so far: 1,210 MiB"``: the seconds since ``started`` (a
    ``time.monotonic()`` reading taken when the run began) and ``peak_memory_mib``."""
    seconds = time.monotonic() - started
    peak = peak_memory_mib()
    memory = "" if peak is None else f"; the kernel's peak memory so far: {peak:,.0f} MiB"
    return f"this run: {seconds:,.0f} s{memory}"
