"""Keeping Ctrl-C from tearing bookkeeping in half.

``KeyboardInterrupt`` can arrive between any two Python bytecodes of the main thread. Code that must
finish once started (committing a batch of pairs, winding a search down) runs inside
``deferred_interrupts()``: on the main thread a SIGINT that arrives meanwhile is only noted, and is
raised as ``KeyboardInterrupt`` when the block ends (``reraise=True``) or reported through the
returned flag (``reraise=False``). Elsewhere (a worker thread, a non-default handler) it does nothing.

Example
-------
>>> with deferred_interrupts(reraise=False) as caught:
...     total = sum(range(10))
>>> total, caught.arrived
(45, False)
"""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager


class _Caught:
    arrived = False


@contextmanager
def deferred_interrupts(reraise: bool = True):
    """Hold SIGINT off for the block (main thread only); see the module docstring."""
    caught = _Caught()
    main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGINT) if main else None
    if previous is not signal.default_int_handler:
        yield caught
        return

    def note(signum, frame):
        caught.arrived = True

    signal.signal(signal.SIGINT, note)
    try:
        yield caught
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught.arrived and reraise:
            raise KeyboardInterrupt
