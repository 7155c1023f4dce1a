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
>>> runs = [fairnb.search(model, data.domain, max_tried=2000, random_state=s, progress=False) for s in (0, 1)]
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

_COLUMNS = {
    "status": "status",
    "tried": "tried",
    "unique_idis_eidig": "unique IDIs",
    "unique_idis_adf": "unique IDIs without protected attrs",
    "success_rate": "success rate",
    "idis_per_s": "IDIs per second",
    "time_to_first_s": "seconds to first IDI",
    "elapsed_s": "seconds",
}


class Comparison:
    """The result of ``compare``: ``figure`` (matplotlib) and ``table`` (DataFrame, one row per search)."""

    def __init__(self, figure, table: pd.DataFrame):
        self.figure = figure
        self.table = table

    def savefig(self, path, **kwargs):
        """Save the figure (any format matplotlib writes)."""
        self.figure.savefig(path, **kwargs)
        return path

    def _repr_html_(self) -> str:
        buf = io.BytesIO()
        self.figure.savefig(buf, format="png", dpi=100, bbox_inches="tight")
        image = base64.b64encode(buf.getvalue()).decode("ascii")
        return (f"<div class='fairnb-comparison'><img alt='unique IDIs over time per method' "
                f"src='data:image/png;base64,{image}'/>{self.table.to_html(escape=True, float_format=_fmt)}</div>")

    def __repr__(self):
        return f"<Comparison of {len(self.table)} searches>\n{self.table.to_string()}"


def compare(results, *, labels=None, x: str = "elapsed", title: str | None = None) -> Comparison:
    """Compare searches: unique IDIs (full instances) over ``x`` (``"elapsed"`` seconds or ``"tried"``
    candidates) per search, and a summary table. ``results`` is a list of Results or a dict
    ``{label: Result}``; labels default to the method names."""
    from matplotlib.figure import Figure

    if isinstance(results, dict):
        labels, results = list(results), list(results.values())
    results = list(results)
    if not results:
        raise ValueError("compare needs at least one Result")
    if x not in ("elapsed", "tried"):
        raise ValueError(f"x must be 'elapsed' or 'tried', got {x!r}")
    labels = _unique_labels(labels or [r.method or "search" for r in results])
    if len(labels) != len(results):
        raise ValueError(f"{len(labels)} labels for {len(results)} results")

    fig = Figure(figsize=(10, 3.6), layout="constrained")
    curve, bars = fig.subplots(1, 2, width_ratios=(2, 1))
    for label, r in zip(labels, results):
        t = r.timeline
        curve.step(t[x], t["found"], where="post", label=label)
    curve.set_xlabel("seconds" if x == "elapsed" else "candidates tried")
    curve.set_ylabel("unique IDIs")
    curve.set_title(title or "Discriminatory inputs found over time")
    curve.legend(fontsize="small")
    curve.grid(alpha=0.3)
    counts = [r.count("eidig") for r in results]
    ypos = range(len(results))
    bars.barh(ypos, counts, color=[f"C{i % 10}" for i in ypos])
    bars.set_yticks(list(ypos), labels)
    bars.invert_yaxis()
    bars.set_xlabel("unique IDIs")
    bars.set_title("Total found")
    for i, r in enumerate(results):
        rate = r.count("eidig") / r.elapsed if r.elapsed > 0 else 0.0
        bars.annotate(f" {rate:,.0f}/s", (counts[i], i), va="center", fontsize="small")
    bars.margins(x=0.25)

    rows = [{new: r.summary().get(old) for old, new in _COLUMNS.items()} for r in results]
    table = pd.DataFrame(rows, index=pd.Index(labels, name="search"))
    return Comparison(fig, table)


def _unique_labels(labels) -> list[str]:
    """``["a", "a"]`` -> ``["a", "a (2)"]``."""
    seen: dict[str, int] = {}
    out = []
    for label in map(str, labels):
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return out


def _fmt(v) -> str:
    return f"{v:.4g}"
