"""Side-by-side comparison of searches (and certificates): unique IDIs over time and a summary table (static).

``fairnb.compare([result_a, result_b])`` (or a dict ``{label: result}``) returns a ``Comparison``
holding a matplotlib ``figure`` (IDIs over time per method, and the total found) and a pandas
``table`` of the headline numbers. Both are static, so they survive notebook export; in a notebook
the Comparison displays as the figure followed by the table.

A ``fairnb.certify`` Certificate may stand among the results: it is no search (it proves shares of the whole
domain fair or unfair, it does not count finds over time), so it gets its own panel (its shares certified /
falsified / undecided as one stacked bar) and its own columns, headed "(certificate)", and a note says so.

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
from ..model_card import is_certificate
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
# Certificate.summary() key -> column of the table (its shares are of the domain's inputs, not of candidates)
# (the verdicts of fairnb.certification.result.VERDICTS, in its order; that package loads only when certify is used)
_VERDICT_COLOURS = {"certified": "tab:green", "falsified": "tab:red", "undecided": "0.8"}
_CERTIFICATE_COLUMNS = {f"{v}_share": f"{v}{' fair' if v == 'certified' else ''}: share of inputs (certificate)"
                        for v in _VERDICT_COLOURS}
_WITNESSES = "witness pairs (certificate)"
_KEYS = {**{heading: key for key, heading in (*_COLUMNS.items(), *_CERTIFICATE_COLUMNS.items())},
         "ended": "status", "kind": "result_kind", _WITNESSES: "witnesses"}   # heading -> glossary term
_FORMATS = {"seeds discriminatory as they are": summaries.fmt_share, "the same on the control model": summaries.fmt_share,
            "candidates checked": summaries.fmt_count, "unique IDIs": summaries.fmt_count,
            "unique IDIs without protected attributes": summaries.fmt_count,
            "unique pairs (unordered)": summaries.fmt_count, "precision": summaries.fmt_share,
            "coverage (2 bins)": summaries.fmt_count, "coverage (4 bins)": summaries.fmt_count,
            "diversity": "{:.3f}".format,
            "success rate": summaries.fmt_share, "IDIs per second": summaries.fmt_rate,
            "seconds to first IDI": summaries.fmt_seconds, "seconds": summaries.fmt_seconds,
            **{heading: summaries.fmt_share for heading in _CERTIFICATE_COLUMNS.values()},
            _WITNESSES: summaries.fmt_count}
_ORDER = ("kind", "ended", *(c for c in _COLUMNS.values() if c != "seconds"), *_CERTIFICATE_COLUMNS.values(),
          _WITNESSES, "seconds")   # a search's numbers, then a certificate's, then both's seconds
_TABULAR_ONLY = ("coverage (2 bins)", "coverage (4 bins)", "diversity")   # fairnb.results.metrics
_IF_ANY = (*_TABULAR_ONLY, "the same on the control model")     # shown when a search has them
_LOG_RATIO = 10     # counts that differ by more than an order of magnitude are drawn on a log scale
_EARLY = ("stopped", "interrupted", "failed")


class Comparison:
    """The result of ``compare``: ``figure`` (matplotlib), ``table`` (DataFrame, one row per search or certificate)
    and ``notes`` (what makes the results not comparable, e.g. different budgets, or a certificate among searches)."""

    def __init__(self, figure, table: pd.DataFrame, notes: list[str] | None = None,
                 alt: str = "unique IDIs over time per search"):
        self.figure = figure
        self.table = table
        self.notes = list(notes or [])
        self.alt = alt

    def savefig(self, path, **kwargs):
        """Save the figure (any format matplotlib writes)."""
        self.figure.savefig(path, **kwargs)
        return path

    def _repr_html_(self) -> str:
        buf = io.BytesIO()
        self.figure.savefig(buf, format="png", dpi=100, bbox_inches="tight")
        image = base64.b64encode(buf.getvalue()).decode("ascii")
        notes = "".join(f"<p class='fairnb-note'>&#9888; {html.escape(n)}</p>" for n in self.notes)
        table = scroll_frame(_explained_headings(self.table.to_html(escape=True, na_rep="", formatters={
            c: _or_blank(f) for c, f in _FORMATS.items() if c in self.table.columns}), self.table.columns))
        return (f"<div class='fairnb-comparison'>{notes}<img alt='{html.escape(self.alt)}' "
                f"src='data:image/png;base64,{image}' style='background:white'/>{table}</div>")

    def __repr__(self):
        notes = "".join(f"\nnote: {n}" for n in self.notes)
        kinds = self.table["kind"] if "kind" in self.table.columns else pd.Series("search", index=self.table.index)
        counted = [_plural(int((kinds == kind).sum()), kind) for kind in ("search", "certificate")]
        what = " and ".join(c for c in counted if not c.startswith("0 ")) or _plural(0, "search")
        return f"<Comparison of {what}>\n{self.table.to_string()}{notes}"


def compare(results, *, labels=None, x: str | None = None, title: str | None = None) -> Comparison:
    """Compare searches: unique IDIs (full instances) over ``x`` (``"elapsed"`` seconds or ``"tried"``
    candidates; by default candidates when every search ended at a candidate cap, else seconds)
    per search, the totals with their success rates, and a summary table. ``results`` is a list of
    Results or a dict ``{label: Result}``; labels default to the method names (``"certify"`` for a
    certificate).

    Searches compare fairly only under the same kind of budget; ``notes`` (shown above the figure)
    say when the budgets differ and when a search stopped early. Counts that differ by orders of
    magnitude are drawn on a log scale.

    A ``fairnb.certify`` Certificate among ``results`` is shown beside the searches, never as one: no curve over
    time, its own panel of shares (certified fair / falsified / undecided, of the domain's integer inputs) and
    its own table columns (the shares of its ``summary()``, its witness pairs counted unordered as a search's
    ``unique_idi_pairs``, its seconds), with ``kind`` saying which row is which.

    >>> import fairnb
    >>> data = fairnb.datasets.make_synthetic(n=500, random_state=0)
    >>> model = fairnb.train_demo_model(data, hidden=(8,), max_iter=50)
    >>> search = fairnb.run_search(model, data.domain, max_tried=2000, random_state=0, progress=False)
    >>> cert = fairnb.certify(model, data.domain, max_boxes=200, progress=False)
    >>> cmp = compare([search, cert])
    >>> cmp.table["kind"].tolist(), len(cmp.figure.axes)
    (['search', 'certificate'], 3)
    """
    from matplotlib.figure import Figure

    if isinstance(results, dict):
        labels, results = list(results), list(results.values())
    results = list(results)
    if not results:
        raise ValueError("compare needs at least one Result")
    searches = [r for r in results if not is_certificate(r)]
    if x is None:
        x = "tried" if all((r.ended_by or ("",))[0] == "max_tried" for r in searches) else "elapsed"
    if x not in ("elapsed", "tried"):
        raise ValueError(f"x must be 'elapsed' or 'tried', got {x!r}")
    labels = _unique_labels(labels or ["certify" if is_certificate(r) else r.method or "search" for r in results])
    if len(labels) != len(results):
        raise ValueError(f"{len(labels)} labels for {len(results)} results")
    search_labels = [lb for lb, r in zip(labels, results) if not is_certificate(r)]
    certified = {lb: r for lb, r in zip(labels, results) if is_certificate(r)}

    panels = ([2, 1] if searches else []) + ([1] if certified else [])     # width ratios: curve, bars, shares
    width = {1: 6, 2: 10, 3: 13}[len(panels)]
    height = 3.6 if searches else 1.6 + 0.5 * len(certified)
    fig = Figure(figsize=(width, height), layout="constrained", facecolor="white")  # readable on dark themes too
    axes = list(fig.subplots(1, len(panels), width_ratios=panels, squeeze=False)[0])
    if searches:
        _draw_searches(axes[0], axes[1], search_labels, searches, x, title)
    if certified:
        _draw_certificates(axes[-1], certified, title if not searches else None)

    table = pd.DataFrame([_row(r) for r in results], index=pd.Index(labels, name="result" if certified else "search"))
    table = table[[c for c in _ORDER if c in table.columns and (certified or c != "kind")]]
    table = table.drop(columns=[c for c in _IF_ANY if c in table.columns and table[c].isna().all()])  # no grid, control
    alt = " and ".join((["unique IDIs over time per search"] if searches else [])
                       + (["the shares each certificate certified, falsified and left undecided"] if certified else []))
    return Comparison(fig, table, _notes(search_labels, searches) + _certificate_notes(certified, bool(searches)), alt)


def _draw_searches(curve, bars, labels, results, x, title) -> None:
    """Unique IDIs over ``x`` per search (``curve``) and each search's total with its success rate (``bars``)."""
    from matplotlib.ticker import FuncFormatter

    counts = [r.count("eidig") for r in results]
    positive = [c for c in counts if c > 0]
    log = len(positive) > 1 and max(positive) > _LOG_RATIO * min(positive)
    thousands = FuncFormatter(lambda v, _: f"{v:,.0f}")
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


def _draw_certificates(ax, certificates: dict, title) -> None:
    """Each certificate's shares of the domain's integer inputs as one stacked bar, its witness pairs beside it."""
    from matplotlib.ticker import PercentFormatter
    from matplotlib.transforms import ScaledTranslation

    ypos = list(range(len(certificates)))
    shares = {v: [c.summary()[f"{v}_share"] for c in certificates.values()] for v in _VERDICT_COLOURS}
    left = [0.0] * len(ypos)
    for verdict, colour in _VERDICT_COLOURS.items():
        ax.barh(ypos, shares[verdict], left=left, color=colour, label=verdict)
        left = [a + b for a, b in zip(left, shares[verdict])]
    ax.set_yticks(ypos, [plot_text(f"{label}\n({summaries.fmt_count(_witness_pairs(c))} witness pairs)")
                         for label, c in certificates.items()])
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel("share of the domain's integer inputs")
    ax.set_title(plot_text(title) if title else "Certified (fairnb.certify)")
    below_label = ax.transAxes + ScaledTranslation(0, -0.45, ax.figure.dpi_scale_trans)   # half an inch down
    ax.legend(fontsize="small", ncols=3, loc="upper center", bbox_to_anchor=(0.5, 0), bbox_transform=below_label,
              frameon=False)


def _row(result) -> dict:
    """One row of the table: a search's numbers, or a certificate's shares, witness pairs and seconds."""
    if not is_certificate(result):
        return {"kind": "search", "ended": result.ending, **{new: result.summary().get(old)
                                                             for old, new in _COLUMNS.items()}}
    s = result.summary()
    return {"kind": "certificate", "ended": summaries.ending(result.status, result.ended_by),
            **{new: s[old] for old, new in _CERTIFICATE_COLUMNS.items()},
            _WITNESSES: _witness_pairs(result), "seconds": s["elapsed"]}


def _witness_pairs(certificate) -> int:
    """A certificate's witnesses counted as a search's pairs: unordered, a pair and its reverse once."""
    return int(certificate.witnesses.summary()["unique_idi_pairs"])


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


def _certificate_notes(certificates: dict, beside_searches: bool) -> list[str]:
    """How to read a certificate beside searches, and a certificate that stopped early."""
    notes = []
    for label, cert in certificates.items():
        if beside_searches:
            notes.append(f"{label} is a certificate (fairnb.certify), not a search: its shares are of the domain's "
                         "integer inputs (proven fair, proven unfair, undecided), not rates of candidates, and it "
                         "has no curve over time; its witness pairs are examples it checked, not a count of finds")
        if cert.status in _EARLY:
            notes.append(f"{label} stopped early: {summaries.ending(cert.status, cert.ended_by)}; "
                         "every decided box is kept, the rest is undecided")
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
    return lambda v: "" if pd.isna(v) else fmt(v)


def _unique_labels(labels) -> list[str]:
    """``["a", "a"]`` -> ``["a", "a (2)"]``."""
    seen: dict[str, int] = {}
    out = []
    for label in map(str, labels):
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return out


def _plural(n: int, kind: str) -> str:
    return f"{n} {kind}" + ("" if n == 1 else "es" if kind == "search" else "s")
