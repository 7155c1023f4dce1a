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


class BackgroundSearch:
    """A search running on a worker thread (see the module docstring).

    Attributes
    ----------
    search : the Search object.
    panel : its ``ProgressPanel`` in a notebook, else None.
    """

    def __init__(self, search, model, domain, seeds=None, *, listeners=()):
        from ..search.progress import make_listener
        from .progress import ProgressPanel

        self.search = search
        progress = make_listener(search.progress, search, background=True)
        self.panel = progress if isinstance(progress, ProgressPanel) else None
        self._stop_requested = threading.Event()
        self._result = None
        self._error: BaseException | None = None
        listeners = tuple(listeners) + ((progress,) if progress is not None else ()) + (self._forward_stop,)
        search.engine_ = None
        self._thread = threading.Thread(target=self._work, args=(model, domain, seeds, listeners),
                                        name=f"fairnb-{search.name}", daemon=True)
        self._thread.start()

    def _work(self, model, domain, seeds, listeners):
        try:
            self._result = self.search._run_claimed(model, domain, seeds, listeners=listeners, progress=False)
        except BaseException as e:  # noqa: BLE001 - re-raised by wait()
            self._error = e
            if self.panel is not None:
                self.panel.fail(e)

    def _forward_stop(self, event):
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
        if self._result is not None:
            return self._result
        engine = self.search.engine_
        return engine.result if engine is not None else None

    def stop(self, wait: bool = True, timeout: float | None = None):
        """End the search after its current batch; with ``wait``, return the Result."""
        self._stop_requested.set()
        self.search.stop()
        if self.panel is not None:
            self.panel.stop_requested = True
        return self.wait(timeout) if wait else None

    def wait(self, timeout: float | None = None):
        """Block until the search ends and return its Result (re-raising its error, if any)."""
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise TimeoutError(f"the search is still running after {timeout} s; call .stop() to end it")
        if self._error is not None:
            raise self._error
        return self._result

    def __repr__(self):
        r = self.result
        state = "running" if not self.done else ("failed" if self._error else r.status)
        found = f", {r.count()} unique IDIs from {r.tried} tried" if r is not None else ""
        return f"<BackgroundSearch {self.search.name} {state}{found}>"
