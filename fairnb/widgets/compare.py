"""Side-by-side comparison of searches: unique IDIs over time and a summary table (static).

``fairnb.compare([result_a, result_b])`` (or a dict ``{label: result}``) returns a ``Comparison``
holding a matplotlib ``figure`` (IDIs over time per method, and the total found) and a pandas
``table`` of the headline numbers. Both are static, so they survive notebook export; in a notebook
the Comparison displays as the figure followed by the table.

Example
-------
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=500, random_state=0)
>>> model = data.info["true_model"]              # the known model behind the synthetic data
>>> runs = [fairnb.run_search(model, data.domain, max_tried=2000, random_state=s, progress=False) for s in (0, 1)]
>>> cmp = compare(runs)
>>> list(cmp.table.index)
['random', 'random (2)']
>>> len(cmp.figure.axes)
2
"""
from __future__ import annotations

import base64
import html
import io

import pandas as pd

from .. import summaries
from ..html_frames import scroll_frame
from ..plot_text import plot_text

# Result.summary() key -> column of the table
_COLUMNS = {
    "natural_rate": "seeds discriminatory as they are",
    "control_natural_rate": "the same on the control model",
    "tried": "candidates checked",
    "unique_idis_eidig": "unique IDIs",
    "unique_idis_adf": "unique IDIs without protected attributes",
    "unique_idi_pairs": "unique pairs (unordered)",
    "success_rate": "success rate",
    "precision": "precision",
    "coverage_2": "coverage (2 bins)",
    "coverage_4": "coverage (4 bins)",
    "diversity_distance": "diversity",
    "idis_per_s": "IDIs per second",
    "time_to_first_s": "seconds to first IDI",
    "elapsed_s": "seconds",
}
_KEYS = {**{heading: key for key, heading in _COLUMNS.items()}, "ended": "status"}   # heading -> glossary term
_FORMATS = {"seeds discriminatory as they are": summaries.fmt_share, "the same on the control model": summaries.fmt_share,
            "candidates checked": summaries.fmt_count, "unique IDIs": summaries.fmt_count,
            "unique IDIs without protected attributes": summaries.fmt_count,
            "unique pairs (unordered)": summaries.fmt_count, "precision": summaries.fmt_share,
            "coverage (2 bins)": summaries.fmt_count, "coverage (4 bins)": summaries.fmt_count,
            "diversity": "{:.3f}".format,
            "success rate": summaries.fmt_share, "IDIs per second": summaries.fmt_rate,
            "seconds to first IDI": summaries.fmt_seconds, "seconds": summaries.fmt_seconds}
_TABULAR_ONLY = ("coverage (2 bins)", "coverage (4 bins)", "diversity")   # fairnb.results.metrics
_IF_ANY = (*_TABULAR_ONLY, "the same on the control model")     # shown when a search has them
_LOG_RATIO = 10     # counts that differ by more than an order of magnitude are drawn on a log scale
_EARLY = ("stopped", "interrupted", "failed")


class Comparison:
    """The result of ``compare``: ``figure`` (matplotlib), ``table`` (DataFrame, one row per search)
    and ``notes`` (what makes the searches not comparable, e.g. different budgets)."""

    def __init__(self, figure, table: pd.DataFrame, notes: list[str] | None = None):
        self.figure = figure
        self.table = table
        self.notes = list(notes or [])

    def savefig(self, path, **kwargs):
        """Save the figure (any format matplotlib writes)."""
        self.figure.savefig(path, **kwargs)
        return path

    def _repr_html_(self) -> str:
        buf = io.BytesIO()
        self.figure.savefig(buf, format="png", dpi=100, bbox_inches="tight")
        image = base64.b64encode(buf.getvalue()).decode("ascii")
        notes = "".join(f"<p class='fairnb-note'>&#9888; {html.escape(n)}</p>" for n in self.notes)
        table = scroll_frame(_explained_headings(self.table.to_html(escape=True, formatters={
            c: _or_blank(f) for c, f in _FORMATS.items() if c in self.table.columns}), self.table.columns))
        return (f"<div class='fairnb-comparison'>{notes}<img alt='unique IDIs over time per search' "
                f"src='data:image/png;base64,{image}' style='background:white'/>{table}</div>")

    def __repr__(self):
        notes = "".join(f"\nnote: {n}" for n in self.notes)
        return f"<Comparison of {len(self.table)} searches>\n{self.table.to_string()}{notes}"


def compare(results, *, labels=None, x: str | None = None, title: str | None = None) -> Comparison:
    """Compare searches: unique IDIs (full instances) over ``x`` (``"elapsed"`` seconds or ``"tried"``
    candidates; by default candidates when every search ended at a candidate cap, else seconds)
    per search, the totals with their success rates, and a summary table. ``results`` is a list of
    Results or a dict ``{label: Result}``; labels default to the method names.

    Searches compare fairly only under the same kind of budget; ``notes`` (shown above the figure)
    say when the budgets differ and when a search stopped early. Counts that differ by orders of
    magnitude are drawn on a log scale."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter

    if isinstance(results, dict):
        labels, results = list(results), list(results.values())
    results = list(results)
    if not results:
        raise ValueError("compare needs at least one Result")
    if x is None:
        x = "tried" if all((r.ended_by or ("",))[0] == "max_tried" for r in results) else "elapsed"
    if x not in ("elapsed", "tried"):
        raise ValueError(f"x must be 'elapsed' or 'tried', got {x!r}")
    labels = _unique_labels(labels or [r.method or "search" for r in results])
    if len(labels) != len(results):
        raise ValueError(f"{len(labels)} labels for {len(results)} results")

    counts = [r.count("eidig") for r in results]
    positive = [c for c in counts if c > 0]
    log = len(positive) > 1 and max(positive) > _LOG_RATIO * min(positive)
    thousands = FuncFormatter(lambda v, _: f"{v:,.0f}")
    fig = Figure(figsize=(10, 3.6), layout="constrained", facecolor="white")  # readable on dark themes too
    curve, bars = fig.subplots(1, 2, width_ratios=(2, 1))
    for label, r in zip(labels, results):
        t = r.timeline
        curve.step(t[x], t["found"], where="post", label=plot_text(label))
    curve.set_xlabel("time (seconds)" if x == "elapsed" else "candidates checked")
    curve.set_ylabel("unique discriminatory inputs")
    default_title = "Discriminatory inputs found over " + ("time" if x == "elapsed" else "candidates")
    curve.set_title(plot_text(title) if title else default_title)
    curve.legend(fontsize="small")
    curve.grid(alpha=0.3)
    ypos = range(len(results))
    bars.barh(ypos, counts, color=[f"C{i % 10}" for i in ypos])
    bars.set_yticks(list(ypos), [plot_text(lb) for lb in labels])
    bars.invert_yaxis()
    bars.set_xlabel("unique discriminatory inputs")
    bars.set_title("Total found (success rate)")
    for i, r in enumerate(results):
        bars.annotate(f" {summaries.fmt_count(counts[i])} ({summaries.fmt_share(r.success_rate)})",
                      (counts[i], i), va="center", fontsize="small")
    if log:
        for axis in (curve.set_yscale, bars.set_xscale):
            axis("symlog", linthresh=1)
        bars.set_xlim(0, max(counts) * 30)    # room for the labels
    else:
        bars.xaxis.set_major_formatter(thousands)
        curve.yaxis.set_major_formatter(thousands)
        bars.margins(x=0.35)
    if x == "tried":
        curve.xaxis.set_major_formatter(thousands)

    rows = [{"ended": r.ending, **{new: r.summary().get(old) for old, new in _COLUMNS.items()}} for r in results]
    table = pd.DataFrame(rows, index=pd.Index(labels, name="search"))
    table = table.drop(columns=[c for c in _IF_ANY if table[c].isna().all()])    # text, images: no grid; no control
    return Comparison(fig, table, _notes(labels, results))


def _notes(labels, results) -> list[str]:
    """What makes the comparison unfair: different kinds of budget, searches that stopped early."""
    notes = []
    kinds = {label: summaries.ending(r.status, r.ended_by) for label, r in zip(labels, results)
             if r.status == "budget"}
    if len({r.ended_by[0] for r in results if r.status == "budget" and r.ended_by}) > 1:
        notes.append("not like with like: the searches ended at different kinds of budget ("
                     + "; ".join(f"{k}: {v}" for k, v in kinds.items()) + "); give them the same budget")
    for label, r in zip(labels, results):
        if r.status in _EARLY:
            notes.append(f"{label} stopped early: {r.ending}")
        elif r.status == "completed" and kinds:
            notes.append(f"{label} ran to its own end before any budget ({summaries.fmt_count(r.tried)} "
                         "candidates), so its total is not limited by the budget the others hit")
    return notes


def _explained_headings(table_html: str, columns) -> str:
    """pandas' escaped table with each column heading given its glossary tooltip and link
    (``fairnb.summaries.term_html``); only the header is changed, never a search's label in the body."""
    head, sep, body = table_html.partition("</thead>")
    for column in columns:
        key = _KEYS.get(column)
        if key is not None:
            head = head.replace(f"<th>{html.escape(column)}</th>", f"<th>{summaries.term_html(key, column)}</th>", 1)
    return head + sep + body


def _or_blank(fmt):
    return lambda v: "" if v is None or v != v else fmt(v)


def _unique_labels(labels) -> list[str]:
    """``["a", "a"]`` -> ``["a", "a (2)"]``."""
    seen: dict[str, int] = {}
    out = []
    for label in map(str, labels):
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return out
