"""How a Result shows itself: ``repr``, the notebook's HTML table, the timeline plot, the pair inspector.

Example
-------
>>> from fairnb.results import Result
>>> Result(None, "random").plot().get_ylabel()
'unique IDIs'
"""
from __future__ import annotations

import html

from .. import summaries
from ..plot_text import plot_text
from ..views import inspector_for


class ResultDisplay:
    """The displays of a Result (a part of ``fairnb.results.Result``)."""

    def __repr__(self):
        fmt = summaries
        return (f"<Result {self.method or 'search'}, {self.ending}: {fmt.fmt_count(self.count('eidig'))} "
                f"discriminatory inputs ({fmt.fmt_count(self.count('adf'))} without protected attributes) "
                f"from {fmt.fmt_count(self.tried)} checked in {fmt.fmt_seconds(self.elapsed)}>")

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><th style='text-align:left'>{summaries.term_html(key, k)}</th>"
                       f"<td style='text-align:right'>{html.escape(v)}</td></tr>"
                       for key, k, v in summaries.keyed_rows(self.summary(), self.ended_by))
        table = summaries.pairs_html(self, range(min(10, len(self))))
        return (f"<div class='fairnb-result'><b>fairnb result: {html.escape(self.method or 'search')}</b>"
                f"<table>{rows}</table>{summaries.directions_html(self.directions(), self.class_names)}"
                f"<p>First {min(10, len(self))} of {summaries.fmt_count(len(self))} pairs "
                f"(protected attributes highlighted):</p>{table}</div>")

    def plot(self, ax=None):
        """Unique IDIs (full inputs, the ``"eidig"`` count) over time (matplotlib)."""
        import matplotlib.pyplot as plt

        ax = ax or plt.subplots(figsize=(5, 3), facecolor="white")[1]   # readable on dark themes
        t = self.timeline
        ax.plot(t["elapsed"], t["found"], label=plot_text(self.method or "search"))
        ax.set_xlabel("seconds")
        ax.set_ylabel("unique IDIs")
        ax.set_title("Discriminatory inputs found over time")
        ax.legend()
        return ax

    def inspect(self, seeds=None, **kwargs):
        """The interactive inspector of the pairs registered for the domain's kind
        (``fairnb.views.inspector_for``; tabular: ``fairnb.widgets.PairInspector``); ``seeds``
        defaults to ``extras["seeds"]``, the inputs that the pairs' seed ids index."""
        return inspector_for(self.domain.kind)(self, seeds, **kwargs)
