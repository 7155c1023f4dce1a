"""The pair inspector: a paged, sortable, filterable table of discriminatory pairs.

``result.inspect()`` (or ``PairInspector(result)``) shows every pair with human-readable values.
The columns that make a pair discriminatory come first: the protected attribute(s) and their
counterpart values, both model outputs, both decisions (named by ``class_names``, e.g. ``>50K``,
when the data set knows what its labels mean) and the difference; the other features follow. Selecting a row shows
the pair side by side and, for searches that start from seeds, which non-protected features the
search changed from the pair's seed. ``inspector.selected`` gives the selected rows as a DataFrame.

The kernel keeps the data and sends one page of rows at a time (``PairTable``), so results with
100,000 pairs stay responsive. The browser receives plain strings and writes them with
``textContent``: feature names and values are never interpreted as HTML.

Seeds: a pair's ``seed`` column indexes the seed inputs; they come from ``seeds=`` or, by default,
from ``result.extras["seeds"]``, which strategies fill with ``ctx.use_seeds(X)``. Pairs with seed
``-1`` (e.g. random sampling) have no seed.

Example
-------
>>> import fairnb
>>> data = fairnb.datasets.make_synthetic(n=500, random_state=0)
>>> result = fairnb.run_search(data.info["true_model"], data.domain, max_tried=4000,
...                        random_state=0, progress=False)
>>> inspector = PairInspector(result, page_size=10)
>>> len(inspector.rows), inspector.total == len(result)
(10, True)
>>> inspector.selected_ids = [0]
>>> inspector.selected.index.tolist()
[0]
"""
from __future__ import annotations

import html

import numpy as np
import pandas as pd
import traitlets

from .. import summaries
from ..domains.base import protected_columns
from ..pair_table import CHANGED, PairTable, column_kind, decision_text, first_columns, format_cell
from ._assets import STATIC
from .paged import PagedInspector


class PairInspector(PagedInspector):
    """Interactive table of a Result's discriminatory pairs (see the module docstring).

    Parameters
    ----------
    result : a tabular ``Result``.
    seeds : the inputs that the pairs' seed ids index (default ``result.extras["seeds"]``).
    page_size : rows per page (1 to 1000).
    class_names : what the decisions 0, 1, ... mean (default ``result.class_names``, which a
        ``Dataset``'s domain gives, e.g. ``("<=50K", ">50K")``); numbers when None.
    """

    _esm = STATIC / "pair_inspector.js"
    _glossary_keys = summaries.NETWORK_KEYS

    columns = traitlets.List().tag(sync=True)
    # what the hidden layers say, in words (NeuronFair's biased neurons beside DICE's severity and causal neurons)
    network = traitlets.List().tag(sync=True)
    rows = traitlets.List().tag(sync=True)
    total = traitlets.Int(0).tag(sync=True)
    filters = traitlets.Dict().tag(sync=True)

    def __init__(self, result, seeds=None, *, page_size: int = 25, class_names=None, **kwargs):
        result = result.snapshot()       # one consistent view, also of a search that is still running
        self.result = result
        self.domain = result.domain
        self.class_names = _class_names(result.class_names if class_names is None else class_names)
        self._ids: list[int] = []
        self._table, columns = self._build_table(result, seeds)
        summary = result.summary()
        metrics = summaries.field_metrics_line(summary)     # the field's metrics (docs/methods/metrics.md)
        super().__init__(title=f"{result.method or 'search'}: discriminatory pairs" + (f" ({metrics})" if metrics else ""),
                         columns=columns, network=summaries.network_findings(summary),
                         n_pairs=len(self._table), page_size=page_size, **kwargs)
        self._refresh()
        self._update_detail()

    def _build_table(self, result, seeds) -> tuple[PairTable, list[dict]]:
        """The table the pages come from, and the columns shown (``name``, ``kind``); sets ``frame``
        (``result.pairs``, what ``selected`` returns) and ``seeds``."""
        self.seeds = _seed_inputs(result, seeds)
        self.frame = result.pairs
        shown, raw = self.frame.copy(), result.to_frame(decoded=False)
        for col in ("label", "label'"):
            shown[col] = [self.decision(v) for v in shown[col]]
        if self.seeds is not None:
            shown[CHANGED], raw[CHANGED] = self._changed_from_seed()
        protected = set(protected_columns(self.domain))
        order = first_columns(list(shown.columns), protected)
        # sort and compare on stored values where the stored form has the column, else on the shown one
        shown, raw = shown[order], pd.DataFrame({c: (raw if c in raw.columns else shown)[c] for c in order})
        return PairTable(shown, raw), [{"name": c, "kind": column_kind(c, protected)} for c in shown.columns]

    def __repr__(self):
        return f"<fairnb pair inspector: {self.title}, {self.n_pairs:,} pairs, page {self.page + 1}>"

    def static_html(self) -> str:
        """The current page as a plain escaped table (for exported notebooks and previews)."""
        head = "".join(f"<th>{html.escape(c['name'])}</th>" for c in self.columns)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in row["cells"]) + "</tr>"
                       for row in self.rows)
        return (f"<div class='fairnb-inspector-static'><b>{html.escape(self.title)}</b> "
                f"({len(self.rows):,} of {self.total:,} shown){self.static_headline()}{self.static_network()}"
                f"<table><thead><tr>{head}</tr></thead>"
                f"<tbody>{body}</tbody></table></div>")

    def static_network(self) -> str:
        """``network`` as an escaped HTML list, each finding's label linked to its glossary entry ("" without any)."""
        if not self.network:
            return ""
        items = "".join(f"<li>{summaries.term_html(f['key'], f['label'])}: {html.escape(f['text'])}</li>"
                        for f in self.network)
        return f"<ul class='fairnb-network'>{items}</ul>"

    # ------------------------------------------------------------------ validation of browser input
    @traitlets.validate("filters")
    def _valid_filters(self, proposal):
        unknown = set(proposal["value"]) - set(self._table.columns)
        if unknown:
            raise traitlets.TraitError(f"cannot filter unknown columns {sorted(unknown)}; columns: {self._table.columns}")
        return {str(k): str(v) for k, v in proposal["value"].items()}

    # ------------------------------------------------------------------ paging and detail
    @traitlets.observe("page", "page_size", "sort_by", "sort_descending", "filters")
    def _on_query(self, change):
        self._refresh()

    def _refresh(self):
        self._ids = self._table.query(self.filters, self.sort_by, self.sort_descending)
        if self.selected_ids:          # the detail view never shows a pair the filters removed
            passing = set(self._ids)
            kept = [i for i in self.selected_ids if i in passing]
            if kept != self.selected_ids:
                self.selected_ids = kept
        if self._clamp_page():
            return
        with self.hold_sync():
            self.total = len(self._ids)
            self.rows = self._page_rows(self._ids[self.page * self.page_size:(self.page + 1) * self.page_size])
            self.version += 1

    def _page_rows(self, ids: list[int]) -> list[dict]:
        """The rows sent to the browser for the pairs ``ids`` of one page."""
        return self._table.page(ids, 0, max(len(ids), 1))

    def decision(self, label) -> str:
        """The meaning of a decision (``">50K"``), or the number when no class names are known."""
        return decision_text(label, self.class_names)

    def describe(self, pair_id: int) -> dict:
        """The side-by-side comparison of one pair, as shown below the table: the protected
        attribute(s) first, then the outputs and decisions, then the other features."""
        row = self.frame.iloc[pair_id]
        x, c = self.result.inputs[pair_id], self.result.counterparts[pair_id]
        seed = self._seed_of(pair_id)
        features = VIEWS.get(getattr(self.domain, "kind", None), pair_view)(self.domain, x, c, seed)
        changes = ", ".join(f"{f['name']} from {f['input']} to {f['counterpart']}" for f in features
                            if f["changed_protected"])
        p, p2, diff = (format_cell(float(row[k])) for k in ("p", "p'", "difference"))
        label, label2 = self.decision(row["label"]), self.decision(row["label'"])
        summary = (f"Pair {pair_id}: changing only {changes} moves the model's output from {p} to {p2} "
                   f"(difference {diff}); decision {label} → {label2}.")
        if seed is not None:
            moved = [f["name"] for f in features if f["changed_from_seed"]]
            summary += (f" The search reached it from seed {int(row['seed'])} by changing {', '.join(moved)}."
                        if moved else f" It is seed {int(row['seed'])} itself.")
        return {
            "pair": int(pair_id), "summary": summary, "features": features, "seed_known": seed is not None,
            "outputs": [{"name": "output p", "input": p, "counterpart": p2},
                        {"name": "decision", "input": label, "counterpart": label2},
                        {"name": "difference", "input": diff, "counterpart": ""}],
        }

    def _seed_of(self, pair_id: int):
        s = int(self.frame["seed"].iloc[pair_id])
        return self.seeds[s] if self.seeds is not None and 0 <= s < len(self.seeds) else None

    def _changed_from_seed(self) -> tuple[list[str], np.ndarray]:
        """Per pair: the non-protected features that differ from its seed (names, and how many)."""
        ids = self.frame["seed"].to_numpy(np.int64)
        known = (ids >= 0) & (ids < len(self.seeds))
        cols = self.domain.non_protected
        diff = np.zeros((len(ids), len(cols)), bool)
        diff[known] = self.result.inputs[known][:, cols] != self.seeds[ids[known]][:, cols]
        patterns, which = np.unique(diff, axis=0, return_inverse=True)
        names = [", ".join(self.domain.names[c] for c in cols[pattern]) for pattern in patterns]
        shown = [names[w] if ok else "" for w, ok in zip(which.ravel().tolist(), known)]
        return shown, np.where(known, diff.sum(axis=1), -1)


VIEWS: dict = {}


def register_view(kind: str):
    """Register the detail view of a domain kind (a decorator): ``view(domain, x, counterpart, seed)``
    returns the rows of the side-by-side comparison, dicts with ``name``, ``input``, ``counterpart``,
    ``seed``, ``protected``, ``changed_protected`` and ``changed_from_seed``. A kind without a view
    gets ``pair_view``."""
    def add(view):
        VIEWS[kind] = view
        return view
    return add


@register_view("tabular")
def feature_table(dom, x, c, seed) -> list[dict]:
    """One row per feature, the protected attribute(s) first."""
    rows = [x, c] if seed is None else [x, c, seed]
    decoded = dom.decode(np.stack(rows)).astype(str).to_numpy()
    protected = set(dom.protected)
    features = []
    for j in sorted(range(dom.n_features), key=lambda j: j not in protected):
        features.append({
            "name": dom.names[j], "input": decoded[0, j], "counterpart": decoded[1, j],
            "seed": None if seed is None else decoded[2, j],
            "protected": j in protected,
            "changed_protected": bool(j in protected and x[j] != c[j]),
            "changed_from_seed": bool(seed is not None and j not in protected and x[j] != seed[j]),
        })
    return features


def pair_view(dom, x, c, seed) -> list[dict]:
    """Any kind: the entries of ``domain.describe_pair``, the changed ones first and marked."""
    described = dom.describe_pair(x, c)
    changed = described.get("changed", {})
    rows = [{"name": str(k), "input": str(a), "counterpart": str(b), "seed": None, "protected": True,
             "changed_protected": True, "changed_from_seed": False} for k, (a, b) in changed.items()]
    return rows + [{"name": str(k), "input": str(v), "counterpart": str(v), "seed": None, "protected": False,
                    "changed_protected": False, "changed_from_seed": False}
                   for k, v in described.get("input", {}).items() if k not in changed]


def _seed_inputs(result, seeds):
    seeds = result.extras.get("seeds") if seeds is None else seeds
    if seeds is None:
        return None
    seeds = np.asarray(getattr(seeds, "values", seeds), dtype=float)
    shape = tuple(result.domain.item_shape)
    if seeds.shape[1:] != shape:
        raise ValueError(f"seeds have shape {seeds.shape}; expected (n, {', '.join(map(str, shape))})")
    return seeds


def _class_names(names):
    if names is None:
        return None
    if isinstance(names, str) or not all(isinstance(n, (str, int, float)) for n in names):
        raise TypeError(f"class_names must be a sequence of names, one per class, e.g. ('<=50K', '>50K'); got {names!r}")
    return tuple(str(n) for n in names)
