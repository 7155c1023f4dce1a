"""A search that blocks a notebook cell keeps the kernel's status "busy" and still hears its Stop button.

Two things go wrong in a Jupyter kernel while a cell runs a long search:

* **The status bar says "Idle".** JupyterLab 4.6 and Notebook 7.6 send widget messages over a kernel
  *subshell* (one per widget kind, created when the first widget appears). The subshell's creation and
  every message it handles publish their own "busy" then "idle" status, and the front end shows the
  last one: the kernel reads "Idle" for the rest of a three-minute search cell. ``busy_while_blocking()``
  re-announces the cell's "busy" twice a second while the search blocks it.
* **A Stop click waits behind the cell** in a front end that sends widget messages to the kernel's main
  shell (no subshells: Lab before 4.6, VS Code, ...). ``shell_pump()`` reads those messages itself and
  handles the widgets' ones at once; ``CommPump`` does it between the search's batches.

Outside a kernel's main thread both are no-ops, so a search in a script, a test or a Dask worker is
unchanged.

Example
-------
>>> with busy_while_blocking():      # outside a kernel: nothing to announce
...     pump = shell_pump()
>>> pump is None, CommPump.in_this_kernel() is None
(True, True)
"""
from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from time import monotonic

from ...interrupts import deferred_interrupts

BUSY_EVERY = 0.5     # seconds between two re-announcements of "busy"


def _kernel():
    """The running ipykernel, or None (not in a kernel, or not on its main thread). A kernel has imported IPython
    already; a script has not, and is not made to (the import takes a fresh process's first search 0.1 s or more)."""
    ipython = sys.modules.get("IPython")
    if ipython is None or threading.current_thread() is not threading.main_thread():
        return None
    return getattr(ipython.get_ipython(), "kernel", None)


@contextmanager
def busy_while_blocking(every: float = BUSY_EVERY):
    """While the block runs (a search inside a cell), publish the cell's "busy" status every ``every``
    seconds from a helper thread (see the module docstring). Nothing outside a kernel's executing cell."""
    kernel = _kernel()
    parent = kernel.get_parent("shell") if kernel is not None else {}
    if not parent.get("header") or parent["header"].get("msg_type") != "execute_request":
        yield
        return
    done = threading.Event()

    def announce():
        while not done.wait(every):
            kernel._publish_status("busy", "shell", parent)

    beacon = threading.Thread(target=announce, name="fairnb-busy", daemon=True)
    beacon.start()
    try:
        yield
    finally:
        with deferred_interrupts(reraise=False):   # a second Ctrl-C here must not lose the search's Result
            done.set()
            beacon.join()    # its last "busy" goes out before the cell's "idle"


class CommPump:
    """An engine listener that handles the widgets' messages waiting for the kernel's main thread
    between two batches (at most every ``every`` seconds), so that the Stop button of a search that
    blocks its cell (``search.run``) is heard. ``CommPump.in_this_kernel()`` gives one, or None."""

    def __init__(self, pump, every: float = 0.05):
        self._pump = pump
        self._thread = threading.current_thread()
        self.every = every
        self._last = float("-inf")

    @classmethod
    def in_this_kernel(cls):
        pump = shell_pump()
        return cls(pump) if pump is not None else None

    def __call__(self, event):
        now = monotonic()
        if threading.current_thread() is self._thread and now - self._last >= self.every:
            self._last = now
            self._pump(0)


def shell_pump():
    """A function ``pump(timeout)`` that handles the widget messages waiting for the kernel's main
    thread, or None outside an IPython kernel (or one whose message loop is not ipykernel 7's).

    A cell that blocks (``run.wait()`` in a "Run All", ``search.run``) keeps the kernel's main thread from
    reading its shell messages, so a Stop click would wait behind the cell. The pump reads them itself:
    comm messages (the widgets' clicks) are handled at once; everything else (the next cells'
    ``execute_request`` s, ...) is handed back to the kernel's own loop, in order, to run after the
    current cell. (``jupyter-ui-poll`` does this for ipykernel 6, whose ``do_one_iteration`` 7 removed.)
    """
    kernel = _kernel()
    try:
        socket = kernel.shell_channel_thread.manager._shell_channel_to_main.to_socket
        parent_var = kernel._shell_parent_ident
        from tornado.ioloop import IOLoop
    except (ImportError, AttributeError):
        return None
    loop = IOLoop.current()

    def pump(timeout: float) -> None:
        while socket.poll(timeout * 1000):
            timeout = 0
            msg = socket.recv_multipart(copy=False)
            if _msg_type(kernel, msg) in ("comm_msg", "comm_close"):
                ident, parent = kernel._get_shell_context_var(parent_var), kernel.get_parent("shell")
                try:
                    _run_sync(kernel.dispatch_shell(msg, concurrent=True))
                finally:
                    kernel.set_parent(ident, parent, channel="shell")  # the cell's output stays its own
            else:
                loop.add_callback(kernel.shell_main, None, msg)  # FIFO: runs after this cell, in order

    return pump


def _msg_type(kernel, msg) -> str:
    """The message's type, or "" when it does not parse (the kernel's own loop then reports it)."""
    try:
        _, frames = kernel.session.feed_identities(msg, copy=False)
        return kernel.session.deserialize(frames, content=False, copy=False)["header"]["msg_type"]
    except Exception:  # noqa: BLE001 - handed to the kernel unchanged
        return ""


def _run_sync(coroutine) -> None:
    """Run a coroutine that never suspends (ipykernel's comm dispatch) to its end."""
    try:
        coroutine.send(None)
    except StopIteration:
        return
    coroutine.close()
    raise RuntimeError("a widget message handler suspended; fairnb cannot handle it while waiting")
