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

Work that may be dropped rather than finished (DICE's debugging, which runs while a search winds down, inside a
deferred block) runs inside ``interruptible()``: the first Ctrl-C ends the block at once, also inside a deferred
block; the ``KeyboardInterrupt`` goes no further, and the returned flag (and the enclosing block's) tells what
happened. Never for bookkeeping: whatever the block was computing is lost.

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
>>> with interruptible() as dropped:
...     total = sum(range(10))
>>> dropped.arrived
False
"""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager


class _Caught:
    arrived = False

    def note(self):
        self.arrived = True


class _Noted(_Caught):
    """The SIGINT handler of ``noted_interrupts``: Python's own (raise ``KeyboardInterrupt``), remembering it."""

    def __call__(self, signum, frame):
        self.note()
        raise KeyboardInterrupt


class _Passing(_Caught):
    """A flag that passes a press on to the enclosing block's flag (``outer``, when it has one)."""

    def __init__(self, outer):
        self.outer = outer

    def note(self):
        self.arrived = True
        if isinstance(self.outer, _Caught):
            self.outer.note()


class _Held(_Passing):
    """The SIGINT handler of ``deferred_interrupts``: notes the press."""

    def __call__(self, signum, frame):
        self.note()


class _Dropping(_Passing, _Noted):
    """The SIGINT handler of ``interruptible``: raises ``KeyboardInterrupt`` at the first press (a later one
    finds the block already ending). A ``_Noted``, so a deferred block inside it holds presses as usual."""

    def __call__(self, signum, frame):
        if not self.arrived:
            self.note()
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
    previous = _ours_to_change()
    if previous is None:
        yield _Caught()
        return
    caught = _Held(previous)
    signal.signal(signal.SIGINT, caught)
    try:
        yield caught
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught.arrived and reraise:
            raise KeyboardInterrupt


@contextmanager
def interruptible():
    """Let the first Ctrl-C end the block at once, also inside ``deferred_interrupts`` (main thread only): for
    work that may be dropped, never for bookkeeping; see the module docstring. The ``KeyboardInterrupt`` does not
    leave the block; the returned flag's ``arrived`` says whether it came."""
    previous = signal.getsignal(signal.SIGINT) if threading.current_thread() is threading.main_thread() else None
    if not (previous is signal.default_int_handler or isinstance(previous, _Caught)):
        yield _Caught()
        return
    dropping = _Dropping(previous)
    signal.signal(signal.SIGINT, dropping)
    try:
        yield dropping
    except KeyboardInterrupt:
        if not dropping.arrived:      # not a Ctrl-C (e.g. raised by a model): not ours to absorb
            raise
    finally:
        signal.signal(signal.SIGINT, previous)
