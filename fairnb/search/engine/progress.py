"""Progress listeners: a live panel in notebooks, a tqdm bar in terminals.

``make_listener(progress, search)`` returns a callable taking engine ``Event``s, or None.

Example
-------
>>> make_listener(False, None) is None
True
"""
from __future__ import annotations

import time
import warnings

from ...views import in_notebook, progress_panel


def make_listener(progress, search, *, stoppable: bool = False):
    """The listener for a search's ``progress`` setting (see ``Search``); call it from the main thread.

    In a notebook this displays the registered progress panel (``fairnb.views.progress_panel()``,
    ``fairnb.widgets.ProgressPanel``; itself the listener), whose Stop button is offered when ``stoppable``
    (the search runs on another thread, or its cell handles widget messages between batches).
    """
    if progress is False:
        return None
    panel = progress_panel() if in_notebook() else None
    if panel is not None:
        try:
            return panel(search, stoppable=stoppable).show()
        except FileNotFoundError as e:  # front end not built: fall back to a text bar
            warnings.warn(str(e), RuntimeWarning, stacklevel=2)
            return TqdmListener()
    if progress:
        return TqdmListener()
    return None


class TqdmListener:
    """Shows tried candidates and unique IDIs on a tqdm bar, updated at most 10 times a second."""

    def __init__(self, min_interval: float = 0.1):
        self.min_interval = min_interval
        self._bar = None
        self._last = 0.0

    def __call__(self, event):
        from tqdm.auto import tqdm

        if event.kind == "start":
            desc = event.result.method or "search"
            if event.result.params.get("max_time") == float("inf"):
                desc += " (no time limit: Ctrl-C or stop() ends it)"
            self._bar = tqdm(desc=desc, unit=" tried", total=None)
            return
        if self._bar is None:
            return
        now = time.monotonic()
        if event.kind == "done" or now - self._last >= self.min_interval:
            self._last = now
            self._bar.n = event.tried
            self._bar.set_postfix(found=event.found, phase=event.phase, rate=f"{event.rate:.0f}/s", refresh=False)
            self._bar.refresh()
        if event.kind == "done":
            self._bar.close()
