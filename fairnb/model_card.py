"""The fairness-testing section of a Hugging Face style model card, from the Results of searches (and TestSGD), and
certificates (``fairnb.certify``: the shares of the domain proven fair, proven unfair and undecided).

``write_model_card(results, out_dir)`` (also ``write_report(..., format="model-card")`` and ``fairnb card``)
writes ``MODEL_CARD.md``: YAML front matter (``tags`` and a ``fairness_testing`` block with every number) and
Markdown: what was tested, the methods and their budgets, the natural rate with its 95 % interval beside the
control model's, the material discriminatory inputs, which way the decisions move per protected value or term,
what was not tested, and the versions. ``fairness.json`` holds the same numbers. Every number is the one the
Result's ``summary()`` gives, unrounded.

Example
-------
>>> import fairnb, tempfile
>>> data = fairnb.datasets.make_synthetic(n=1000, random_state=0)
>>> r = fairnb.run_search(fairnb.train_demo_model(data), data.domain, n_samples=2000, random_state=0)
>>> md, js = write_model_card([r], tempfile.mkdtemp(), title="demo")
>>> md.read_text().splitlines()[0], md.name, js.name
('---', 'MODEL_CARD.md', 'fairness.json')
"""
from __future__ import annotations

import json
import math
from importlib import metadata
import platform
import time
from pathlib import Path

import numpy as np
import pandas as pd

from . import summaries

#: summary() keys the card reports for a search (when the Result has them)
SEARCH_KEYS = ("status", "natural_rate", "natural_low", "natural_high", "natural_n", "control_natural_rate",
               "control_natural_low", "control_natural_high", "control_natural_n", "material_pairs",
               "immaterial_pairs", "unique_idis_eidig", "unique_idis_adf", "tried", "elapsed_s")
GROUP_KEYS = ("status", "rule_sets_scored", "top_rule_set", "score", "eps", "phi_in", "phi_out", "support", "n",
              "confidence", "queries", "seconds")
#: summary() keys the card reports for a certificate (``fairnb.certify``)
CERTIFICATE_KEYS = ("status", "certified_share", "falsified_share", "undecided_share", "witness_boxes_share",
                    "inputs", "certified_boxes", "falsified_boxes", "undecided_boxes", "witnesses", "elapsed")
#: parameters that are not a budget or a setting of the method (left out of "methods and budgets")
NOT_BUDGET = ("progress", "control")


def is_certificate(result) -> bool:
    """Whether ``result`` is a ``fairnb.certify`` Certificate (boxes and witnesses) rather than a search's Result."""
    return hasattr(result, "boxes") and hasattr(result, "witnesses")


def card_numbers(result) -> dict:
    """One result's entry of the card: method, kind, protected attributes, budget and the ``summary()`` numbers
    the card reports (a TestSGD ``GroupResult``: its rule-set numbers)."""
    s = result.summary()
    group, certificate = not hasattr(result, "domain"), is_certificate(result)
    keys = GROUP_KEYS if group else CERTIFICATE_KEYS if certificate else SEARCH_KEYS
    params = {k: v for k, v in getattr(result, "params", {}).items() if k not in NOT_BUDGET and v is not None}
    domain = getattr(result, "domain", None)
    kind = "group" if group else "certificate" if certificate else getattr(domain, "kind", "tabular")
    protected = ([] if group else [str(p) for p in getattr(domain, "protected_names", ())] if certificate
                 else list(s.get("protected", [])))
    return {"method": "certify" if certificate else s["method"], "kind": kind, "protected": protected,
            "budget": json.loads(json.dumps(params, default=str)),
            **{k: s[k] for k in keys if s.get(k) is not None}}


def versions() -> dict:
    """The versions the card's numbers were measured with."""
    import sklearn

    try:
        fairnb = metadata.version("fairnb")
    except metadata.PackageNotFoundError:
        fairnb = "not installed"
    return {"fairnb": fairnb, "python": platform.python_version(), "numpy": np.__version__,
            "pandas": pd.__version__, "scikit-learn": sklearn.__version__}


def write_model_card(results, out_dir, *, title: str | None = None) -> tuple[Path, Path]:
    """Write ``out_dir/MODEL_CARD.md`` and ``out_dir/fairness.json`` (see the module docstring); returns
    both paths."""
    results = list(results)
    if not results:
        raise ValueError("results is empty: give the Results of the searches the card reports")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    entries = [card_numbers(r) for r in results]
    numbers = {"model": title, "tool": "fairnb", "date": time.strftime("%Y-%m-%d"), "versions": versions(),
               "results": entries}
    front = {"tags": ["fairness-testing", "fairnb"], "fairness_testing": numbers}
    body = _markdown(results, entries, title)
    md, js = out / "MODEL_CARD.md", out / "fairness.json"
    md.write_text("---\n" + to_yaml(front) + "---\n\n" + body, encoding="utf-8")
    js.write_text(json.dumps(numbers, indent=1), encoding="utf-8")
    return md, js


# ---------------------------------------------------------------------------------------------- Markdown


def _markdown(results, entries, title) -> str:
    searches = [(r, e) for r, e in zip(results, entries) if e["kind"] not in ("group", "certificate")]
    groups = [(r, e) for r, e in zip(results, entries) if e["kind"] == "group"]
    certificates = [(r, e) for r, e in zip(results, entries) if e["kind"] == "certificate"]
    lines = [f"## Fairness testing{f' of {title}' if title else ''}", "",
             "### What was tested", ""]
    for r, e in searches:
        lines.append(f"- individual discrimination ({e['kind']} inputs) with respect to "
                     f"{', '.join(e['protected']) or 'the protected attribute'}: pairs of inputs that differ only there "
                     f"and get different decisions, searched by `{e['method']}`")
    for r, e in groups:
        lines.append(f"- group discrimination (`testsgd`): rules over the sensitive features whose groups get the "
                     f"favourable decision at different rates ({e.get('rule_sets_scored', 0):,} rule sets scored)")
    for r, e in certificates:
        lines.append(f"- individual fairness proven or refuted over every integer input of the domain with respect to "
                     f"{', '.join(e['protected'])} (`fairnb.certify`, symbolic interval bounds of the network)")
    lines += ["", "### Methods and budgets", "", *_head("method", "inputs", "protected", "budget", "ended")]
    for r, e in zip(results, entries):
        budget = "; ".join(f"{k}={v}" for k, v in e["budget"].items()) or "defaults"
        lines.append(_row([e["method"], e["kind"], ", ".join(e["protected"]), budget,
                           getattr(r, "ending", e.get("status", ""))]))
    lines.append("")
    if searches:
        lines += ["### Natural rate", "",
                  "The share of the search's seeds that are discriminatory as they are, before any search changes "
                  "them, with its 95 % Wilson interval; beside it the same on the control model (a model without "
                  "the bias), when the search had one. This, not the count of found pairs, tells a biased model "
                  "from a fair one.", "",
                  *_head("method", "protected", "natural rate (95 % interval)", "seeds",
                         "control's natural rate (95 % interval)")]
        for _, e in searches:
            lines.append(_row([e["method"], ", ".join(e["protected"]), _rate(e, "natural"),
                               summaries.fmt_count(e.get("natural_n", 0)), _rate(e, "control_natural") or "no control"]))
        lines += ["", "### Discriminatory inputs found", "",
                  "Material: the decision's probability moves by at least 0.1 between the two inputs of a pair "
                  "(the rest sit at the decision threshold). Unique inputs: full instances (EIDIG convention).", "",
                  *_head("method", "material", "immaterial", "unique inputs", "without protected",
                         "candidates checked", "seconds")]
        for _, e in searches:
            lines.append(_row([e["method"], *(summaries.fmt_count(e.get(k, 0)) for k in
                               ("material_pairs", "immaterial_pairs", "unique_idis_eidig", "unique_idis_adf", "tried")),
                               f"{e.get('elapsed_s', 0):g}"]))
        lines += ["", "### Directions", "",
                  "Which way the decisions move when the protected value or term is swapped to another.", ""]
        for r, e in searches:
            lines += [f"`{e['method']}`:", "", _directions(r), ""]
    for r, e in groups:
        lines += ["### Group discrimination (TestSGD)", "", "The top rule sets, each with its fairness score (the "
                  "difference of the favourable rates inside and outside the group) and error bound:", "",
                  _table(r.top()[["rule_set", "support", "phi_in", "phi_out", "score", "eps"]].reset_index()), ""]
    if certificates:
        lines += ["### Certified", "",
                  "Shares of the domain's integer inputs (over the non-protected features) proven fair (every "
                  "protected value gets the same decision), proven unfair (every one of them discriminates) and "
                  "undecided at the budget; witness boxes are undecided boxes in which a discriminatory input was "
                  "confirmed.", "",
                  *_head("protected", "certified fair", "proven unfair", "undecided", "of which witness boxes",
                         "inputs", "seconds")]
        for _, e in certificates:
            lines.append(_row([", ".join(e["protected"]),
                               *(summaries.fmt_share(e[k]) for k in ("certified_share", "falsified_share",
                                                                     "undecided_share", "witness_boxes_share")),
                               summaries.fmt_count(e["inputs"]), f"{e['elapsed']:g}"]))
        lines.append("")
    lines += ["### What was not tested", "", *(f"- {t}" for t in _not_tested(results, entries)), "",
              "### Versions", "", *(f"- {k} {v}" for k, v in versions().items()), ""]
    return "\n".join(lines)


def _rate(e: dict, prefix: str) -> str:
    if f"{prefix}_rate" not in e:
        return ""
    return (f"{summaries.fmt_share(e[f'{prefix}_rate'])} ({summaries.fmt_share(e[f'{prefix}_low'])} to "
            f"{summaries.fmt_share(e[f'{prefix}_high'])})")


def _directions(result) -> str:
    if not len(result):
        return "no pairs found."
    return _table(result.directions())


def _table(frame: pd.DataFrame) -> str:
    rows = _head(*frame.columns)
    for values in frame.itertuples(index=False):
        rows.append(_row([f"{v:.4g}" if isinstance(v, float) else v for v in values]))
    return "\n".join(rows)


def _head(*names) -> list[str]:
    """A table's header and delimiter rows."""
    return [_row(names), _row(["---"] * len(names))]


def _row(values) -> str:
    """One table row in the linters' compact style: one space each side of a cell, ``| |`` for an empty one."""
    return "|" + "|".join(f" {_cell(v)} " if _cell(v) else " " for v in values) + "|"


def _cell(value) -> str:
    return str(value).replace("|", "/").replace("\n", " ").strip()


def searches_without_control(entries) -> bool:
    """Whether the card reports searches and none had a control model."""
    searches = [e for e in entries if e["kind"] not in ("group", "certificate")]
    return bool(searches) and not any("control_natural_rate" in e for e in searches)


def _not_tested(results, entries) -> list[str]:
    out = []
    protected = {p for e in entries for p in e["protected"]}
    for r in results:
        names = getattr(getattr(r, "domain", None), "names", None)
        if getattr(getattr(r, "domain", None), "kind", None) == "tabular" and names is not None:
            others = [str(n) for n in names if str(n) not in protected]
            if others:
                out.append("discrimination with respect to the other input features, treated as non-protected: "
                           + ", ".join(others))
            break
    for e in entries:
        if e["kind"] == "certificate" and e.get("undecided_share", 0) > 0:
            out.append(f"the certificate's undecided inputs ({summaries.fmt_share(e['undecided_share'])} of the "
                       "domain): neither proven fair nor unfair")
    if not any(e["kind"] == "group" for e in entries):
        out.append("group discrimination (rules over combinations of sensitive features; `fairnb groups`)")
    if searches_without_control(entries):
        out.append("a control model: the natural rates have no fair model's rate beside them")
    out += ["inputs outside the domain's bounds and values, and other protected attributes or terms than those named",
            "a search that finds no pair does not show that none exists; the natural rate estimates how common "
            "discrimination is on the seeds, within its interval"]
    return out


# ---------------------------------------------------------------------------------------------- YAML


def to_yaml(value, indent: int = 0) -> str:
    """``value`` (dicts, lists and scalars, as JSON holds them) as block-style YAML that ``yaml.safe_load`` reads
    back equal (floats keep a ``.``, strings are quoted).

    >>> print(to_yaml({"a": [1, "x"], "b": {"c": 1e-05, "d": None}}), end="")
    a:
      - 1
      - "x"
    b:
      c: 1.0e-05
      d: null
    """
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return pad + "{}\n"
        out = []
        for k, v in value.items():
            if isinstance(v, (dict, list)) and v:
                out.append(f"{pad}{_scalar(str(k))}:\n" if not _plain_key(k) else f"{pad}{k}:\n")
                out.append(to_yaml(v, indent + 2))
            else:
                key = k if _plain_key(k) else _scalar(str(k))
                out.append(f"{pad}{key}: {_scalar(v)}\n")
        return "".join(out)
    if isinstance(value, list):
        out = []
        for v in value:
            if isinstance(v, (dict, list)) and v:
                block = to_yaml(v, indent + 2)
                out.append(f"{pad}- {block[indent + 2:]}")
            else:
                out.append(f"{pad}- {_scalar(v)}\n")
        return "".join(out)
    return pad + _scalar(value) + "\n"


def _plain_key(k) -> bool:
    return isinstance(k, str) and k.replace("_", "").replace("-", "").isalnum() and k.isascii() and not k[0].isdigit()


def _scalar(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if math.isnan(v):
            return ".nan"
        if math.isinf(v):
            return ".inf" if v > 0 else "-.inf"
        text = repr(v)
        mantissa, e, exponent = text.partition("e")
        return (mantissa if "." in mantissa else mantissa + ".0") + (f"e{exponent}" if e else "")
    if isinstance(v, (dict, list)):      # empty
        return "{}" if isinstance(v, dict) else "[]"
    return json.dumps(str(v))
