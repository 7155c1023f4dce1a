"""A self-contained HTML report of one or several search results (used by ``fairnb demo``).

Example
-------
>>> import fairnb, tempfile
>>> data = fairnb.datasets.make_synthetic(n=1000, random_state=0)
>>> r = fairnb.run_search(fairnb.train_demo_model(data), data.domain, n_samples=2000, random_state=0)
>>> path = write_report([r], tempfile.mkdtemp(), title="demo")
>>> path.name
'index.html'
"""
from __future__ import annotations

import html
from pathlib import Path

import numpy as np
import pandas as pd

from . import summaries
from .html_frames import scroll_frame
from .model_card import is_certificate
from .plot_text import plot_text


SUMMARY_COLUMNS = ("status", "natural_rate", "unique_idis_eidig", "unique_idis_adf", "tried", "success_rate", "elapsed_s",
                   "idis_per_s", "time_to_first_s", "time_to_1000_s")
N_EXAMPLES = 8


def _plot_timeline(results, path: Path) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 3.4), dpi=110, facecolor="white")
    ax = fig.subplots()
    for r in results:
        t = r.timeline.iloc[1:]           # the origin sample cannot be drawn on a log axis
        ax.step(t["elapsed"], t["found"], where="post", label=plot_text(f"{r.method} ({r.count():,} IDIs)"))
    ax.set_xscale("log")
    ax.set_xlabel("seconds (log scale)")
    ax.set_ylabel("unique discriminatory inputs")
    ax.set_title("Discriminatory inputs found over time")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


def summary_table(results) -> pd.DataFrame:
    """One row per search, human labels and formatted numbers (the report's summary); the control model's natural
    rate beside the natural rate when a search had one (``control=``)."""
    found = [r.summary() for r in results]
    columns = list(SUMMARY_COLUMNS)
    if any("control_natural_rate" in s for s in found):
        columns.insert(columns.index("natural_rate") + 1, "control_natural_rate")
    rows = {}
    for r, s in zip(results, found):
        rows[r.method] = {summaries.LABELS[k]: summaries.formatted(k, s.get(k), r.ended_by) for k in columns}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("method")


def example_ids(results) -> list[list[int]]:
    """For each result, ``N_EXAMPLES`` pair ids spread over its run, preferring pairs no other result found.

    Searches that start from the same seeds (ADF and NeuronFair, EIDIG and MAFT) or draw the same
    random inputs first (random sampling and AEQUITAS's global phase) report the same first pairs:
    the seeds or draws that are discriminatory as they are. Their first rows tell the methods apart
    no better than a coin, so the report shows what each found that the others did not.
    """
    keys = [{x.tobytes(): i for i, x in enumerate(np.ascontiguousarray(r.inputs))} for r in results]
    out = []
    for k, own in enumerate(keys):
        others = set().union(*(keys[j].keys() for j in range(len(keys)) if j != k))
        only = [i for key, i in own.items() if key not in others] or list(own.values())
        pick = np.unique(np.linspace(0, len(only) - 1, min(N_EXAMPLES, len(only))).round().astype(int))
        out.append([sorted(only)[p] for p in pick] if only else [])
    return out


def write_report(results, out_dir, *, title: str = "fairnb report", intro: str = "",
                 sections: tuple[tuple[str, str], ...] = (), checks: tuple[tuple[str, str], ...] = (),
                 format: str = "html") -> Path:
    """Write ``out_dir/index.html`` (with ``timeline.png``) summarising ``results`` (searches' Results; a
    ``fairnb.certify`` Certificate among them is shown in its own section after the searches').

    ``checks`` are ``(heading, html)`` blocks shown first (e.g. the ground-truth check), ``sections``
    blocks appended at the end; both already-escaped HTML. ``format="model-card"`` writes the fairness-testing
    section of a model card instead (``out_dir/MODEL_CARD.md`` and ``fairness.json``, see
    ``fairnb.model_card``; ``title`` names the model there) and returns the Markdown's path.
    """
    if format == "model-card":
        from .model_card import write_model_card

        return write_model_card(results, out_dir, title=None if title == "fairnb report" else title)[0]
    if format != "html":
        raise ValueError(f"format must be 'html' or 'model-card', got {format!r}")
    results = list(results)
    certificates = [r for r in results if is_certificate(r)]      # fairnb.certify's: shown apart, after the searches
    results = [r for r in results if not is_certificate(r)]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _plot_timeline(results, out / "timeline.png")
    parts = [f"<h1>{html.escape(title)}</h1>", f"<p>{html.escape(intro)}</p>" if intro else ""]
    for heading, block in checks:
        parts += [f"<h2>{html.escape(heading)}</h2>", block]
    parts += [
        "<h2>Summary</h2>",
        scroll_frame(summary_table(results).to_html(escape=True, index_names=False)),
        "<p>Unique full inputs is the EIDIG/MAFT count; without protected attributes the ADF/NeuronFair "
        "count. Success rate = discriminatory candidates / candidates checked.</p>",
        "<h2>Discriminatory inputs over time</h2>",
        '<img src="timeline.png" alt="unique discriminatory inputs over time">',
    ]
    for r, ids in zip(results, example_ids(results)):
        parts += [f"<h2>Examples found by {html.escape(r.method)}</h2>",
                  f"<p>{len(ids)} of its {summaries.fmt_count(len(r))} pairs, spread over the run, "
                  "found by no other method where possible; protected attributes highlighted.</p>",
                  summaries.pairs_html(r, ids)]
    for cert in certificates:
        parts += ["<h2>Certified (fairnb.certify)</h2>", cert._repr_html_()]
    for heading, block in sections:
        parts += [f"<h2>{html.escape(heading)}</h2>", block]
    page = ("<!doctype html><html><head><meta charset='utf-8'><title>" + html.escape(title) + "</title>"
            "<style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222}"
            "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px}"
            "th{background:#f3f3f3}td{text-align:right;white-space:nowrap}</style></head><body>" + "\n".join(parts) + "</body></html>")
    path = out / "index.html"
    path.write_text(page, encoding="utf-8")
    return path
