"""Keeping Ctrl-C from tearing bookkeeping in half.

``KeyboardInterrupt`` can arrive between any two Python bytecodes of the main thread. Code that must
finish once started (committing a batch of pairs, winding a search down) runs inside
``deferred_interrupts()``: on the main thread a SIGINT that arrives meanwhile is only noted, and is
raised as ``KeyboardInterrupt`` when the block ends (``reraise=True``) or reported through the
returned flag (``reraise=False``). Elsewhere (a worker thread, a non-default handler) it does nothing.

A ``KeyboardInterrupt`` that Python raises inside a finaliser (a ``__del__``, e.g. z3's ``AstRef.__del__``,
which runs whenever z3 frees an expression) is printed as "Exception ignored" and lost. A loop that must
notice every Ctrl-C runs inside ``noted_interrupts()``: SIGINT still raises ``KeyboardInterrupt`` at once,
and is also noted in the returned flag, which the loop checks between its steps.

Example
-------
>>> with deferred_interrupts(reraise=False) as caught:
...     total = sum(range(10))
>>> total, caught.arrived
(45, False)
>>> with noted_interrupts() as pressed:
...     total = sum(range(10))
>>> pressed.arrived
False
"""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager


class _Caught:
    arrived = False


class _Noted(_Caught):
    """The SIGINT handler of ``noted_interrupts``: Python's own (raise ``KeyboardInterrupt``), remembering it."""

    def __call__(self, signum, frame):
        self.arrived = True
        raise KeyboardInterrupt


def _ours_to_change():
    """The SIGINT handler now in place if it is Python's default or a ``noted_interrupts`` one on the main
    thread (the handlers these blocks may replace for a while), else None."""
    if threading.current_thread() is not threading.main_thread():
        return None
    handler = signal.getsignal(signal.SIGINT)
    return handler if handler is signal.default_int_handler or isinstance(handler, _Noted) else None


@contextmanager
def noted_interrupts():
    """Raise ``KeyboardInterrupt`` on SIGINT as usual and note it in the returned flag (main thread only;
    see the module docstring)."""
    previous = _ours_to_change()
    if previous is None:
        yield _Caught()
        return
    if isinstance(previous, _Noted):        # nested: the outer block's flag serves both
        yield previous
        return
    noted = _Noted()
    signal.signal(signal.SIGINT, noted)
    try:
        yield noted
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def deferred_interrupts(reraise: bool = True):
    """Hold SIGINT off for the block (main thread only); see the module docstring."""
    caught = _Caught()
    previous = _ours_to_change()
    if previous is None:
        yield caught
        return

    def note(signum, frame):
        caught.arrived = True
        if isinstance(previous, _Noted):
            previous.arrived = True

    signal.signal(signal.SIGINT, note)
    try:
        yield caught
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught.arrived and reraise:
            raise KeyboardInterrupt
