"""The report of a mitigation: every measure before and after retraining, per method, as in the papers' tables.

``report.runs`` holds one row per method and stage (``"before"``, then one ``"after"`` row per repeat);
``report.frame`` one row per method and measure: ``before``, ``after`` (the mean over repeats),
``after_sd``, the relative ``change`` (``(after - before) / before``) and 95 % intervals
(``low_*``/``high_*``: Wilson for one random sample, mean +- 1.96 sd / sqrt(repeats) over repeats, the
TestSGD bound for the group score). Measures: ``accuracy`` (held-out split), ``discrimination``
(share of discriminatory inputs in a uniform random sample), ``idis`` (a fresh search's unique IDIs,
when measured), ``group_score`` (TestSGD) and, for image detectors, ``attribute_auc`` (how much the
attribute flip moves the hidden neurons, NeuronFair's Table 11) and ``detection_rate`` (held-out faces).

Example
-------
>>> import pandas as pd
>>> runs = pd.DataFrame([
...     {"method": "adf", "stage": "before", "repeat": 0, "added": 0, "accuracy": 0.85, "discrimination": 0.04,
...      "discrimination_low": 0.036, "discrimination_high": 0.044, "samples": 10000},
...     {"method": "adf", "stage": "after", "repeat": 0, "added": 120, "accuracy": 0.84, "discrimination": 0.01,
...      "discrimination_low": 0.008, "discrimination_high": 0.012, "samples": 10000}])
>>> report = MitigationReport(runs)
>>> report.value("adf", "discrimination")
(0.04, 0.01)
>>> round(float(report.frame.set_index("measure").loc["discrimination", "change"]), 2)
-0.75
"""
from __future__ import annotations

import html

import numpy as np
import pandas as pd

MEASURES = {"accuracy": "accuracy (held-out)", "discrimination": "discriminatory share of random inputs",
            "idis": "IDIs of a fresh search", "group_score": "TestSGD group score",
            "attribute_auc": "attribute-effect AUC (NeuronFair, max layer)", "detection_rate": "detection rate (faces)"}
_Z = 1.959964
SHARES = ("accuracy", "discrimination", "group_score", "detection_rate")   # shown as percentages


def measure_text(measure: str, value: float) -> str:
    """One value of ``measure`` as a reader sees it: shares as percentages, IDIs as a count, an AUC with
    three decimals.

    >>> measure_text("detection_rate", 0.8556), measure_text("attribute_auc", 0.1327), measure_text("idis", 1520.0)
    ('85.56%', '0.133', '1,520')
    """
    if measure in SHARES:
        return f"{value:.2%}"
    return f"{value:,.0f}" if measure == "idis" else f"{value:.3f}"


def setting_text(value) -> str:
    """A retraining setting as text: a function by its name (not its repr with an address).

    >>> setting_text(len), setting_text(lambda x: x), setting_text(None), setting_text("model")
    ('len', 'a custom function', 'paper default', 'model')
    """
    if value is None:
        return "paper default"
    if callable(value) and hasattr(value, "__name__"):     # a function; a labeller object keeps its repr
        return value.__name__ if value.__name__ != "<lambda>" else "a custom function"
    return str(value)


class MitigationReport:
    """Before/after measures of one or several methods' retraining (see the module docstring)."""

    def __init__(self, runs: pd.DataFrame, params: dict | None = None, models: dict | None = None):
        self.runs = runs.reset_index(drop=True)
        self.params = dict(params or {})
        self.models = dict(models or {})
        self.frame = self._summarise()

    @property
    def measures(self) -> list[str]:
        return [m for m in MEASURES if m in self.runs and self.runs[m].notna().any()]

    @property
    def methods(self) -> list[str]:
        return list(dict.fromkeys(self.runs["method"]))

    def _summarise(self) -> pd.DataFrame:
        rows = []
        for method in self.methods:
            mine = self.runs[self.runs["method"] == method]
            before, after = mine[mine["stage"] == "before"].iloc[0], mine[mine["stage"] == "after"]
            for measure in self.measures:
                b, a = float(before[measure]), after[measure].to_numpy(float)
                row = {"method": method, "measure": measure, "before": b, "after": float(a.mean()),
                       "after_sd": float(a.std(ddof=1)) if len(a) > 1 else 0.0,
                       "change": (a.mean() - b) / b if b else np.nan, "repeats": len(a),
                       "added": float(after["added"].mean())}
                row.update(_interval(measure, before, "before"))
                row.update(_interval(measure, after, "after"))
                rows.append(row)
        cols = ["method", "measure", "before", "after", "change", "after_sd", "low_before", "high_before",
                "low_after", "high_after", "repeats", "added"]
        return pd.DataFrame(rows, columns=cols)

    def value(self, method: str, measure: str) -> tuple[float, float]:
        """``(before, after)`` of ``measure`` for ``method`` (after: the mean over repeats)."""
        hit = self.frame[(self.frame["method"] == method) & (self.frame["measure"] == measure)]
        if hit.empty:
            raise KeyError(f"no {measure!r} for {method!r}; methods {self.methods}, measures {self.measures}")
        return float(hit["before"].iloc[0]), float(hit["after"].iloc[0])

    def versus_control(self, method: str, measure: str | None = None) -> dict:
        """How ``method``'s retraining compares with retraining alone (the ``"control"`` row, same epochs and
        seeds, no generated sample) on ``measure`` (default the headline: discrimination, the group score or
        the attribute AUC): ``effect`` (method's mean after minus the control's), its 95 % interval
        (``low``, ``high``: Welch's t over the repeats; with one repeat each, the two measurement intervals),
        and ``verdict`` in words: ``"lower than retraining alone"``, ``"higher than retraining alone"`` or
        ``"no effect distinguishable from retraining alone"`` (also when there is no control row, which the
        verdict then says).

        >>> import pandas as pd
        >>> rows = [{"method": m, "stage": "after", "repeat": i, "added": 0, "discrimination": v}
        ...         for m, vals in (("adf", (0.10, 0.11, 0.12)), ("control", (0.10, 0.12, 0.11))) for i, v in enumerate(vals)]
        >>> rows += [{"method": m, "stage": "before", "repeat": 0, "added": 0, "discrimination": 0.2} for m in ("adf", "control")]
        >>> MitigationReport(pd.DataFrame(rows)).versus_control("adf")["verdict"]
        'no effect distinguishable from retraining alone'
        """
        measure = measure or self.headline
        if measure is None or measure not in self.measures:
            raise KeyError(f"no measure {measure!r} in this report; it has {self.measures}")
        if "control" not in self.methods:
            return {"effect": np.nan, "low": np.nan, "high": np.nan,
                    "verdict": "no control run (retrain with control=True to compare with retraining alone)"}
        mine, ctrl = (self.runs[(self.runs["method"] == m) & (self.runs["stage"] == "after")] for m in (method, "control"))
        a, c = mine[measure].to_numpy(float), ctrl[measure].to_numpy(float)
        effect = float(a.mean() - c.mean())
        if len(a) > 1 and len(c) > 1:
            va, vc = a.var(ddof=1) / len(a), c.var(ddof=1) / len(c)
            se = np.sqrt(va + vc)
            df = (va + vc) ** 2 / (va ** 2 / (len(a) - 1) + vc ** 2 / (len(c) - 1)) if se > 0 else np.inf
            from scipy.stats import t

            half = float(t.ppf(0.975, df) * se) if np.isfinite(df) else 0.0
            low, high = effect - half, effect + half
        else:     # one repeat each: the measurement intervals (e.g. Wilson of the random sample)
            f = self.frame.set_index(["method", "measure"])
            low = float(f.loc[(method, measure), "low_after"] - f.loc[("control", measure), "high_after"])
            high = float(f.loc[(method, measure), "high_after"] - f.loc[("control", measure), "low_after"])
        if np.isnan(low) or low <= 0 <= high:
            verdict = "no effect distinguishable from retraining alone"
        else:
            verdict = f"{'lower' if high < 0 else 'higher'} than retraining alone"
        return {"effect": effect, "low": low, "high": high, "verdict": verdict}

    @property
    def headline(self) -> str | None:
        """The measure a report leads with: discrimination, else the group score, else the attribute AUC."""
        return next((m for m in ("discrimination", "group_score", "attribute_auc") if m in self.measures), None)

    def summary(self) -> list[dict]:
        """``frame`` as JSON-ready records."""
        return [{k: (round(v, 6) if isinstance(v, float) else v) for k, v in r.items()}
                for r in self.frame.to_dict("records")]

    # ------------------------------------------------------------------ display
    def __repr__(self):
        parts = []
        headline = self.headline
        for method in self.methods:
            said = []
            for measure in (headline, "accuracy"):
                if measure is not None and ((self.frame["method"] == method) & (self.frame["measure"] == measure)).any():
                    b, a = self.value(method, measure)
                    said.append(f"{measure} {measure_text(measure, b)} -> {measure_text(measure, a)}")
            if headline is not None and method != "control" and "control" in self.methods:
                said.append(self.versus_control(method)["verdict"])
            parts.append(f"{method}: {', '.join(said)}")
        return "MitigationReport(" + "; ".join(parts) + ")"

    def _repr_html_(self) -> str:
        head = ("<tr><th>method</th><th>measure</th><th>before</th><th>after</th><th>change</th>"
                "<th>compared with retraining alone</th><th>added samples</th><th>repeats</th></tr>")
        body = []
        for r in self.frame.itertuples():
            fmt = lambda v, m=r.measure: measure_text(m, v)  # noqa: E731
            ci = lambda lo, hi: "" if np.isnan(lo) else f" <small>[{fmt(lo)}, {fmt(hi)}]</small>"  # noqa: E731
            change = "" if np.isnan(r.change) else f"{r.change:+.1%}"
            versus = ""
            if r.measure == self.headline and r.method != "control":
                v = self.versus_control(r.method)
                versus = (html.escape(v["verdict"]) if np.isnan(v["effect"]) else
                          f"{html.escape(v['verdict'])} <small>({_signed(r.measure, v['effect'])} "
                          f"[{_signed(r.measure, v['low'])}, {_signed(r.measure, v['high'])}])</small>")
            body.append(f"<tr><td>{html.escape(str(r.method))}</td><td>{html.escape(MEASURES[r.measure])}</td>"
                        f"<td>{fmt(r.before)}{ci(r.low_before, r.high_before)}</td>"
                        f"<td>{fmt(r.after)}{ci(r.low_after, r.high_after)}</td><td>{change}</td><td>{versus}</td>"
                        f"<td>{r.added:,.0f}</td><td>{r.repeats}</td></tr>")
        p = self.params
        how = html.escape(f"mode={p.get('mode')}, epochs={p.get('epochs')}, augment={p.get('augment')}, "
                          f"labels={setting_text(p.get('labels'))}") if p else ""
        return (f"<div class='fairnb-mitigation'><b>fairnb mitigation: retraining with the generated samples</b>"
                f"<p>{how}</p><table>{head}{''.join(body)}</table></div>")

    def plot(self, measures=None, axes=None):
        """Before/after bars per method, one panel per measure, with 95 % intervals (matplotlib)."""
        import matplotlib.pyplot as plt

        measures = list(measures or self.measures)
        unknown = set(measures) - set(self.measures)
        if unknown:
            raise ValueError(f"no measure {sorted(unknown)} in this report; it has {self.measures}")
        if axes is None:
            _, axes = plt.subplots(1, len(measures), figsize=(4.2 * len(measures), 3.2), squeeze=False)
            axes = axes[0]
        x = np.arange(len(self.methods))
        for ax, measure in zip(axes, measures):
            sub = self.frame[self.frame["measure"] == measure].set_index("method").loc[self.methods]
            scale = 100.0 if measure != "idis" else 1.0
            for offset, stage, colour in ((-0.2, "before", "#9aa5b1"), (0.2, "after", "#2f6db3")):
                val = sub[stage].to_numpy() * scale
                err = np.vstack([val - sub[f"low_{stage}"].to_numpy() * scale,
                                 sub[f"high_{stage}"].to_numpy() * scale - val])
                ax.bar(x + offset, val, 0.4, label=stage, color=colour,
                       yerr=None if np.isnan(err).all() else np.nan_to_num(err), capsize=3)
            ax.set_xticks(x, self.methods, rotation=30 if len(x) > 3 else 0)
            ax.set_title(MEASURES[measure], fontsize=10)
            ax.set_ylabel("%" if scale == 100 else "count")
        axes[0].legend()
        return axes


def _signed(measure: str, value: float) -> str:
    """A difference of ``measure`` with its sign ("+1.20%", "-0.013")."""
    return ("+" if value >= 0 else "-") + measure_text(measure, abs(value))


def _interval(measure: str, rows, stage: str) -> dict:
    """95 % interval of ``measure`` over ``rows`` (one row: its own interval; several: over repeats)."""
    rows = rows.to_frame().T if isinstance(rows, pd.Series) else rows
    lo = hi = np.nan
    vals = rows[measure].to_numpy(float)
    if len(vals) > 1:
        half = _Z * vals.std(ddof=1) / np.sqrt(len(vals))
        lo, hi = vals.mean() - half, vals.mean() + half
    elif measure == "discrimination" and "discrimination_low" in rows:
        lo, hi = float(rows["discrimination_low"].iloc[0]), float(rows["discrimination_high"].iloc[0])
    elif measure == "group_score" and "group_eps" in rows:
        eps = float(rows["group_eps"].iloc[0])
        lo, hi = max(vals[0] - eps, 0.0), vals[0] + eps
    return {f"low_{stage}": lo, f"high_{stage}": hi}
