"""The live progress panel of a search, with a Stop button.

A ``ProgressPanel`` is an engine listener: the engine calls it with every ``Event``, possibly from a
background thread, and the panel turns the events into at most ``1 / min_interval`` trait updates
per second (10 by default), each sent as one message (``hold_sync``). It shows candidates tried,
unique IDIs found, the success rate, IDIs per second, elapsed time, the phase and a small chart of
IDIs over time.

The Stop button sets ``stop_requested``; the panel then calls ``search.stop()`` and the search ends
after its current batch, keeping every pair found. The click reaches the kernel while no cell is
running (``search.start(...)``: a background thread) and while a cell blocks in ``search.run(...)`` or
``run.wait()``, which handle widget messages meanwhile (``fairnb.search.engine.kernel_messages``; the kernel
reads "busy" then), "Run All" included. Where the kernel cannot handle them early (ipykernel before 7)
the panel says to interrupt the kernel instead, which also keeps every pair.

A run that is not a search (``fairnb.certify``) sends events with a ``stats`` list of ``(label, text)``
pairs, which the panel shows instead of the search's counters and chart (and its ``stop_words``, what its Stop
button and hint say, instead of the search's); ``ProgressPanel.live(run)``
shows the panel for such a run and lets its Stop through while the run blocks the cell.

Example
-------
>>> import fairnb
>>> from fairnb.search import RandomSearch
>>> data = fairnb.datasets.make_synthetic(n=500, random_state=0)
>>> search = RandomSearch(n_samples=2000, progress=False)
>>> panel = ProgressPanel(search)
>>> result = search.run(data.info["true_model"], data.domain, listeners=[panel])
>>> panel.status, panel.tried
('completed', 2000)
"""
from __future__ import annotations

import html
import threading
import warnings
from contextlib import contextmanager
from time import monotonic

import traitlets

from .. import summaries
from ._assets import STATIC, FairnbWidget


class ProgressPanel(FairnbWidget):
    """Live counters, a chart and a Stop button for one search (see the module docstring).

    Parameters
    ----------
    search : the ``Search`` to stop when the button is pressed (may be None).
    stoppable : True when a click can reach the search (see above), so the button is offered.
    min_interval : seconds between two updates sent to the browser.
    max_points : the most (elapsed, found) samples kept for the chart.
    """

    _esm = STATIC / "progress_panel.js"
    _glossary_keys = ("tried", "found", "success_rate", "idis_per_s", "elapsed_s", "phase", "preparing")

    method = traitlets.Unicode("").tag(sync=True)
    status = traitlets.Unicode("waiting").tag(sync=True)
    phase = traitlets.Unicode("").tag(sync=True)
    tried = traitlets.Int(0).tag(sync=True)
    found = traitlets.Int(0).tag(sync=True)
    found_adf = traitlets.Int(0).tag(sync=True)
    success_rate = traitlets.Float(0.0).tag(sync=True)
    rate = traitlets.Float(0.0).tag(sync=True)
    elapsed = traitlets.Float(0.0).tag(sync=True)
    series = traitlets.List().tag(sync=True)
    stoppable = traitlets.Bool(False).tag(sync=True)
    stop_requested = traitlets.Bool(False).tag(sync=True)
    message = traitlets.Unicode("").tag(sync=True)
    ending = traitlets.Unicode("").tag(sync=True)   # why the search ended, in words
    stats = traitlets.List().tag(sync=True)         # [label, text] pairs of a run that names its own numbers
    stop_words = traitlets.Dict().tag(sync=True)    # the run's own Stop texts ("tip", "blocked", "hint"), if any

    def __init__(self, search=None, *, stoppable: bool = False, min_interval: float = 0.1,
                 max_points: int = 240, **kwargs):
        if min_interval < 0 or max_points < 2:
            raise ValueError("ProgressPanel needs min_interval >= 0 and max_points >= 2")
        super().__init__(method=getattr(search, "name", "") or "", stoppable=stoppable,
                         stop_words=dict(getattr(search, "stop_words", None) or {}), **kwargs)
        self.search = search      # for Stop; let go when the search ends
        self.min_interval = min_interval
        self.max_points = max_points
        self.updates = 0
        self._last = float("-inf")
        self._lock = threading.Lock()
        self._display = None

    def show(self):
        """Display the panel in the notebook (call from the kernel's main thread); when the search
        ends, the display is refreshed so that the notebook file keeps the final numbers."""
        from IPython.display import display

        self._display = display(self, display_id=True)
        return self

    @classmethod
    @contextmanager
    def live(cls, run):
        """Show a panel for ``run`` (a call blocking this cell, with ``name`` and ``stop()``), and give its listener,
        which also handles the widgets' messages between two events so that Stop is heard; the kernel reads
        "busy" meanwhile (``fairnb.search.engine.kernel_messages``). None when the front end is not built."""
        from ..search.engine.kernel_messages import CommPump, busy_while_blocking

        pump = CommPump.in_this_kernel()
        try:
            panel = cls(run, stoppable=pump is not None).show()
        except FileNotFoundError as e:  # front end not built: no panel
            warnings.warn(str(e), RuntimeWarning, stacklevel=3)
            panel = None

        def listener(event):
            panel(event)
            if pump is not None:
                pump(event)
        with busy_while_blocking():
            try:
                yield listener if panel is not None else None
            except BaseException as e:
                if panel is not None:
                    panel.fail(e)
                raise

    def __repr__(self):
        if self.stats:
            numbers = ", ".join(f"{label} {text}" for label, text in self.stats)
            return f"<fairnb progress {self.method}: {self.ending or self.status}; {numbers}>"
        return (f"<fairnb progress {self.method or 'search'}: {self.ending or self.status}; "
                f"{summaries.fmt_count(self.found)} unique IDIs from {summaries.fmt_count(self.tried)} tried "
                f"({summaries.fmt_share(self.success_rate)}) in {summaries.fmt_seconds(self.elapsed)}>")

    def static_html(self) -> str:
        """The panel's numbers as a plain table (for exported notebooks)."""
        rows = [("status", "status", self.ending or self.status), ("tried", "tried", summaries.fmt_count(self.tried)),
                ("found", "found (unique)", summaries.fmt_count(self.found)),
                ("success_rate", "success rate", summaries.fmt_share(self.success_rate)),
                ("elapsed_s", "elapsed", summaries.fmt_seconds(self.elapsed))]
        if self.stats:
            rows = [rows[0], *((None, label, text) for label, text in self.stats)]
        cells = "".join(f"<tr><th style='text-align:left'>{summaries.term_html(key, k) if key else html.escape(k)}</th>"
                        f"<td>{html.escape(v)}</td></tr>" for key, k, v in rows)
        return f"<div class='fairnb-progress-static'><b>fairnb · {html.escape(self.method or 'search')}</b><table>{cells}</table></div>"

    def stop(self):
        """Ask the search to end after its current batch (what the Stop button does)."""
        self.stop_requested = True

    @traitlets.observe("stop_requested")
    def _on_stop_requested(self, change):
        if change["new"] and self.search is not None:
            self.search.stop()

    def __call__(self, event):
        """Receive one engine ``Event`` (from any thread); updates the browser at most every ``min_interval``."""
        now = monotonic()
        final = event.kind in ("prepare", "start", "done")
        if not final and now - self._last < self.min_interval:
            return
        self._last = now
        if self.stop_requested and self.search is not None:
            self.search.stop()  # a click that arrived before the search's stop flag existed
        with self._lock, self.hold_sync():
            if hasattr(event, "stats"):
                self._take_stats(event)
            else:
                self._take_search_event(event)
            self.updates += 1
        if event.kind == "done":
            # the panel outlives its search (ipywidgets keeps every widget until it is closed): keep only its
            # numbers, not the search, whose engine holds the Result and the model (issue #22: a second Run All
            # of tutorial 04 kept every earlier search's pairs)
            self.search = None
            if self._display is not None:
                self._display.update(self)   # the saved notebook shows the final numbers without widgets

    def _take_search_event(self, event):
        r = event.result
        self.tried = int(event.tried)
        self.found = int(event.found)
        self.found_adf = int(event.found_adf)
        self.success_rate = float(r.success_rate)
        self.rate = float(event.rate)
        self.elapsed = float(event.elapsed)
        self.phase = event.phase or ""
        if event.kind == "prepare":
            self.status = "preparing"      # the model's first call (TensorFlow tracing), before the clock
        elif event.kind == "done":
            t = r.timeline
            self.series = _thin([[round(float(a), 3), int(b)] for a, b in zip(t["elapsed"], t["found"])],
                                self.max_points)
            self.ending = r.ending
            self.status = r.status
            if r.error is not None:
                self.message = f"{type(r.error).__name__}: {r.error}"
        else:
            self.series = _thin(self.series + [[round(float(event.elapsed), 3), int(event.found)]],
                                self.max_points)
            self.status = "running"

    def _take_stats(self, event):
        """A run's own numbers: ``event.stats`` (label, text) pairs, ``elapsed``, ``status`` and ``ending``."""
        self.stats = [[str(label), str(text)] for label, text in event.stats]
        self.elapsed = float(event.elapsed)
        self.status = event.status
        self.ending = event.ending

    def fail(self, error: BaseException):
        """Show that the search ended with an error."""
        with self._lock, self.hold_sync():
            self.status = "failed"
            self.message = f"{type(error).__name__}: {error}"


def _thin(points: list, max_points: int) -> list:
    """Keep at most ``max_points`` samples: every other one when too many, and always the last.

    >>> _thin([[i, i] for i in range(5)], 3)
    [[0, 0], [2, 2], [4, 4]]
    """
    while len(points) > max_points:
        points = points[:-1:2] + [points[-1]]
    return points
