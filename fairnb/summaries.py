"""Human labels and one number format for a Result's summary (what a teacher reads).

``Result.summary()`` keeps its machine keys (``unique_idis_eidig``, ...) for JSON and the CLI; the
displays (``repr``, ``_repr_html_``, ``fairnb.compare``, the demo report) show them through this
module: labelled, counts with thousands separators, shares as percentages, seconds with units, and
the reason the search ended in words ("time budget of 10 s reached").

>>> fmt_count(20400), fmt_share(0.12345), fmt_seconds(3.14159), fmt_seconds(0.0123)
('20,400', '12.3 %', '3.14 s', '0.0123 s')
>>> ending("budget", ("max_found", 100000))
'100,000-pair cap reached'
>>> ending("stopped")
'stopped by user'
"""
from __future__ import annotations

import html
import math

from .domains.base import protected_columns
from .pair_table import decision_text, first_columns

# labels of Result.summary() keys, in the order they are shown
LABELS = {
    "method": "method",
    "status": "ended",
    "protected": "protected attributes",
    "natural_rate": "seeds discriminatory as they are (compare with a fair model's)",
    "natural_low": "  95 % interval, low",
    "natural_high": "  95 % interval, high",
    "natural_n": "  seeds checked as they are",
    "material_idis": "discriminatory inputs whose decision moves by at least 0.1 (material)",
    "unique_idis_eidig": "discriminatory inputs (unique full inputs)",
    "unique_idis_adf": "discriminatory inputs (unique without protected attributes)",
    "tried": "candidates checked",
    "hits": "discriminatory candidates (with repeats)",
    "success_rate": "success rate",
    "elapsed_s": "time",
    "idis_per_s": "discriminatory inputs per second",
    "time_to_first_s": "time to the first discriminatory input",
    "time_to_1000_s": "time to 1,000 discriminatory inputs",
    "near_threshold": "pairs within a millionth of the decision threshold (float rounding may decide them)",
    "immaterial_pairs": "pairs whose two probabilities differ by less than 0.1 (boundary noise, counted apart)",
    "rejected_idis": "discriminatory inputs refused by the constraints (not counted above)",
    "constraints": "constraints the pairs keep",
    "rejected_realistic": "refused as not realistic (unlike every row of the training data)",
    # the methods' own numbers (extras), in the words of the glossary
    "natural_idis": "seeds discriminatory as they are",
    "seeds_used": "seeds the search started from",
    "skipped_seeds": "seeds skipped (no protected term, or unusable)",
    "generated": "distinct inputs generated",
    "generated_adf": "distinct inputs generated (without protected attributes)",
    "global_generated": "distinct inputs generated in the global phase",
    "local_generated": "distinct inputs generated in the local phase",
    "raw_idis": "seeds discriminatory as they are (raw IDIs)",
    "global_idis": "IDIs found in the global phase",
    "local_idis": "IDIs found in the local phase",
    "local_seeds": "IDIs the local phase started from",
    "local_success_rate": "local phase: IDIs per distinct input generated",
    "local_steps": "local steps taken",
    "gsr": "generation success rate (IDIs per distinct input generated)",
    "strict_idis": "pairs the attribute classifier f_sa sees as two attributes (strict)",
    "flip_success_rate": "share of seeds whose attribute flip succeeded",
    "flip_failed": "seeds whose attribute flip failed",
    "f_sa_accuracy": "accuracy of the attribute classifier f_sa",
    "gradient_rows": "rows whose gradient was computed",
    "gradient_calls": "gradient calls",
    "model_rows": "rows sent to the model",
    "discriminatory_share": "share of random inputs discriminatory",
    "share_ci_low": "  95 % interval, low",
    "share_ci_high": "  95 % interval, high",
    "test_cases_generated": "test cases generated (SG)",
}
SHARES = ("success_rate", "natural_rate", "natural_low", "natural_high", "local_success_rate", "gsr",
          "flip_success_rate", "f_sa_accuracy", "discriminatory_share", "share_ci_low", "share_ci_high")   # as %
_BUDGETS = {
    "max_time": lambda v: f"time budget of {fmt_seconds(v)} reached",
    "max_tried": lambda v: f"{fmt_count(v)}-candidate cap reached",
    "max_found": lambda v: f"{fmt_count(v)}-pair cap reached",
}
_STATUS = {
    "completed": "completed (the method ran to its end)",
    "budget": "budget reached",
    "stopped": "stopped by user",
    "interrupted": "interrupted (Ctrl-C or kernel interrupt)",
    "running": "still running",
    "failed": "failed (the pairs found before the error are kept)",
}


def fmt_count(n) -> str:
    """An integer count with thousands separators."""
    return f"{int(n):,}"


def fmt_share(x) -> str:
    """A share in [0, 1] as a percentage with three significant digits."""
    pct = 100 * float(x)
    if pct == 0 or pct >= 10:
        return f"{pct:.1f} %"
    return f"{pct:.{max(1, 2 - math.floor(math.log10(abs(pct))))}f} %"


def fmt_seconds(s) -> str:
    """Seconds with three significant digits (no exponent)."""
    s = float(s)
    if s >= 100:
        return f"{s:,.0f} s"
    return f"{s:.3g} s" if s >= 0.001 else f"{s:.4f} s"


def fmt_rate(x) -> str:
    """A per-second rate: one decimal below 100, whole numbers above."""
    x = float(x)
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}"


def ending(status: str, ended_by=None) -> str:
    """Why a search ended, in words; ``ended_by`` is ``(budget name, limit)`` when a budget ended it."""
    if status == "budget" and ended_by and ended_by[0] in _BUDGETS:
        return _BUDGETS[ended_by[0]](ended_by[1])
    return _STATUS.get(status, str(status))


def formatted(key: str, value, ended_by=None) -> str:
    """One summary value as text (None: "not reached")."""
    if value is None:
        return "not reached" if key.startswith("time_to") else "n/a"
    if key == "status":
        return ending(value, ended_by)
    if key == "protected":
        return ", ".join(map(str, value)) or "none"
    if key in SHARES:
        return fmt_share(value)
    if key == "idis_per_s":
        return fmt_rate(value)
    if key.endswith("_s"):
        return fmt_seconds(value)
    if isinstance(value, bool) or isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return fmt_count(value)
    if isinstance(value, float):
        return f"{value:,.0f}" if value.is_integer() and abs(value) >= 1000 else f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(formatted("", v) for v in value)
    return str(value)


def rows(summary: dict, ended_by=None) -> list[tuple[str, str]]:
    """(label, text) for every entry of a summary: the known keys first, then the method's extras.

    >>> rows({"tried": 20400, "success_rate": 0.2136, "idis_per_s": 4358.2, "nodes": 3})
    [('candidates checked', '20,400'), ('success rate', '21.4 %'), ('discriminatory inputs per second', '4,358'), ('nodes', '3')]
    """
    known = [k for k in LABELS if k in summary]
    extra = [k for k in summary if k not in LABELS]
    return ([(LABELS[k], formatted(k, summary[k], ended_by)) for k in known]
            + [(label(k), formatted(k, summary[k])) for k in extra])


def label(key: str) -> str:
    """The words for a summary key without a label of its own (a constraint's refusals, a method's count).

    >>> label("rejected_max_words_changed"), label("biased_layer")
    ('refused by the constraint max words changed', 'biased layer')
    """
    if key.startswith("rejected_"):
        return "refused by the constraint " + key[len("rejected_"):].replace("_", " ")
    return key.replace("_", " ")


def headline(summary: dict) -> str:
    """What an inspector's summary band says first, in words a student understands: the natural rate with its
    95 % interval (what tells a biased model from a fair one), then the material discriminatory inputs found.

    >>> headline({"natural_rate": 0.313, "natural_low": 0.263, "natural_high": 0.367, "natural_n": 300,
    ...           "material_idis": 1234})     # doctest: +NORMALIZE_WHITESPACE
    '31.3 % of the 300 inputs checked as they are (before the search changed them) are discriminatory
     (95 % interval: 26.3 % to 36.7 %); a model without the bias has a much lower share: compare with one.
     The search found 1,234 discriminatory inputs whose decision moves by at least 0.1.'
    >>> headline({"material_idis": 0})[:60]
    'The search checked no inputs as they are, so there is no nat'
    """
    found = fmt_count(summary.get("material_idis", summary.get("unique_idis_eidig", 0)))
    then = f"The search found {found} discriminatory inputs whose decision moves by at least 0.1."
    if summary.get("natural_rate") is None:
        return ("The search checked no inputs as they are, so there is no natural rate to compare with a fair "
                f"model's. {then}")
    return (f"{fmt_share(summary['natural_rate'])} of the {fmt_count(summary['natural_n'])} inputs checked as they "
            f"are (before the search changed them) are discriminatory (95 % interval: "
            f"{fmt_share(summary['natural_low'])} to {fmt_share(summary['natural_high'])}); a model without the bias "
            f"has a much lower share: compare with one. {then}")


def pairs_html(result, ids) -> str:
    """The pairs ``ids`` of ``result`` as an HTML table: protected values, outputs and named decisions
    first, protected columns highlighted (dark text on yellow, readable on dark themes too)."""
    rows = result.pairs.iloc[list(ids)]
    protected = list(protected_columns(result.domain))
    rows = rows[first_columns(list(rows.columns), set(protected))]
    for col in ("label", "label'"):
        rows[col] = [decision_text(v, result.class_names) for v in rows[col]]
    rows.columns = [html.escape(str(c), quote=False) for c in rows.columns]
    prot = [html.escape(n, quote=False) for n in protected]
    styled = rows.style.set_properties(subset=prot + [f"{p}'" for p in prot],
                                       **{"background-color": "#ffe8a3", "color": "#222", "font-weight": "bold"})
    return styled.format(precision=3, escape="html").hide(axis="index").to_html()


def directions_html(table, class_names=None, rows: int = 12) -> str:
    """``Result.directions()`` as a small HTML table in words ("" when there are no pairs)."""
    if not len(table):
        return ""
    one = class_names[1] if class_names and len(class_names) == 2 else "class 1"
    zero = class_names[0] if class_names and len(class_names) == 2 else "class 0"
    head = "".join(f"<th>{html.escape(c)}</th>" for c in (
        "swapped to", "pairs", f"decision becomes {one}", f"decision becomes {zero}", "mean |p - p'|"))
    body = "".join(f"<tr><td>{html.escape(f'{r.attribute} = {r.to}')}</td><td>{fmt_count(r.pairs)}</td>"
                   f"<td>{fmt_share(r.to_class_1)}</td><td>{fmt_share(r.to_class_0)}</td><td>{r.mean_change:.3f}</td></tr>"
                   for r in table.head(rows).itertuples())
    return (f"<p>Which way decisions move when the protected value is swapped to each value:</p>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
