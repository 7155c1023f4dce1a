"""Searches on a background thread, so that a notebook stays responsive (and Stop can be clicked).

``search.start(model, domain, seeds)`` returns a ``BackgroundSearch`` at once. The search runs on a
worker thread; the progress panel (in a notebook) is created and displayed by the calling thread
before the worker starts, and the worker only changes its traits. ``stop()`` ends the search after
its current batch; ``wait()`` returns the Result, which keeps every pair found either way.

Example
-------
>>> import fairnb
>>> from fairnb.search import RandomSearch
>>> data = fairnb.datasets.make_synthetic(n=500, random_state=0)
>>> model = data.info["true_model"]              # the known model behind the synthetic data
>>> run = RandomSearch(n_samples=None, max_time=60, progress=False).start(model, data.domain)
>>> result = run.stop()        # ends at the next batch
>>> result.status, run.done
('stopped', True)
"""
from __future__ import annotations

import threading
from time import monotonic

from ...interrupts import deferred_interrupts
from .kernel_messages import busy_while_blocking, shell_pump


class BackgroundSearch:
    """A search running on a worker thread (see the module docstring).

    Attributes
    ----------
    search : the Search object.
    panel : its ``ProgressPanel`` in a notebook, else None.
    """

    def __init__(self, search, model, domain, seeds=None, *, listeners=(), limit_threads: bool = False,
                 client=None, n_shards: int | None = None):
        from .progress import make_listener

        self.search = search
        progress = make_listener(search.progress, search, stoppable=True)
        self.panel = progress if hasattr(progress, "fail") else None   # the notebook panel, not a tqdm bar
        self._stop_requested = threading.Event()
        self._result = None
        self._live = None          # the running search's Result, as its last event showed it
        self._error: BaseException | None = None
        listeners = tuple(listeners) + ((progress,) if progress is not None else ()) + (self._follow,)
        self._thread = threading.Thread(target=self._work, args=(model, domain, seeds, listeners, limit_threads),
                                        kwargs={"client": client, "n_shards": n_shards},
                                        name=f"fairnb-{search.name}", daemon=True)
        self._thread.start()

    def _work(self, model, domain, seeds, listeners, limit_threads, client=None, n_shards=None):
        try:
            self._result = self.search._run_claimed(model, domain, seeds, listeners=listeners, progress=False,
                                                    limit_threads=limit_threads, client=client, n_shards=n_shards)
        except BaseException as e:  # noqa: BLE001 - re-raised by wait()
            self._error = e
            self._result = getattr(e, "result", None)   # the partial Result of a failed search
            if self.panel is not None:
                self.panel.fail(e)

    def _follow(self, event):
        self._live = event.result
        # a stop() that came before the search created its stop flag still ends it
        if self._stop_requested.is_set():
            self.search.stop()

    # ------------------------------------------------------------------ control
    @property
    def done(self) -> bool:
        """True once the search has ended (finished, stopped, out of budget or failed)."""
        return not self._thread.is_alive()

    @property
    def result(self):
        """The Result: final once ``done``, live (still growing) before; None before the search starts."""
        return self._result if self._result is not None else self._live

    def stop(self, wait: bool = True, timeout: float | None = None):
        """End the search after its current batch; with ``wait``, return the Result."""
        self._stop_requested.set()
        self.search.stop()
        if self.panel is not None:
            self.panel.stop_requested = True
        return self.wait(timeout) if wait else None

    def wait(self, timeout: float | None = None):
        """Block until the search ends and return its Result.

        If the search failed, its exception is raised here, as ``run`` raises it: with the partial
        Result (status ``"failed"``) as the exception's ``.result`` (also ``self.result``).

        Ctrl-C while waiting ends the search and returns its Result with status ``"interrupted"``, as
        ``run`` does. Inside a Jupyter kernel the wait keeps processing widget messages, so the panel's Stop
        button still works while a "Run All" sits in ``run.wait()``; cells queued behind this one
        run after it, in order, and the kernel's status reads "busy" meanwhile.
        """
        try:
            with busy_while_blocking():     # the kernel reads "busy" while this cell waits
                _join(self._thread, timeout)
        except KeyboardInterrupt:      # Ctrl-C while waiting ends the search, as it ends a foreground one
            return self._interrupted()
        if self._thread.is_alive():
            raise TimeoutError(f"the search is still running after {timeout} s; call .stop() to end it")
        if self._error is not None:
            raise self._error
        return self._result

    def _interrupted(self):
        """Stop the search after a Ctrl-C in ``wait``, wait for its end (further Ctrl-Cs held off) and
        return its Result marked ``"interrupted"``."""
        self.stop(wait=False)
        with deferred_interrupts(reraise=False):    # the Result is returned, whatever else is pressed
            self._thread.join()
        if self._error is not None:
            raise self._error
        if self._result.status == "stopped":
            self._result.status = "interrupted"
        return self._result

    def __repr__(self):
        r = self.result
        state = "running" if not self.done else ("failed" if self._error else r.status)
        found = f", {r.count()} unique IDIs from {r.tried} tried" if r is not None else ""
        return f"<BackgroundSearch {self.search.name} {state}{found}>"


def _join(thread: threading.Thread, timeout: float | None, poll_every: float = 0.05) -> None:
    """Join ``thread`` (up to ``timeout`` s); inside a kernel, handling widget messages meanwhile."""
    pump = shell_pump()
    if pump is None:
        thread.join(timeout)
        return
    deadline = None if timeout is None else monotonic() + timeout
    while thread.is_alive() and (deadline is None or monotonic() < deadline):
        pump(poll_every)
        thread.join(0)
