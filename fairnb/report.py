"""A self-contained HTML report of one or several search results (used by ``fairnb demo``).

Example
-------
>>> import fairnb, tempfile
>>> data = fairnb.datasets.make_synthetic(n=1000, random_state=0)
>>> r = fairnb.search(fairnb.train_demo_model(data), data.domain, n_samples=2000, random_state=0)
>>> path = write_report([r], tempfile.mkdtemp(), title="demo")
>>> path.name
'index.html'
"""
from __future__ import annotations

import html
from pathlib import Path

import pandas as pd


SUMMARY_COLUMNS = ("status", "unique_idis_eidig", "unique_idis_adf", "tried", "success_rate", "elapsed_s",
                   "idis_per_s", "time_to_first_s", "time_to_1000_s")


def _plot_timeline(results, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.4), dpi=110)
    for r in results:
        t = r.timeline.iloc[1:]           # the origin sample cannot be drawn on a log axis
        ax.step(t["elapsed"], t["found"], where="post", label=f"{r.method} ({r.count()} IDIs)")
    ax.set_xscale("log")
    ax.set_xlabel("seconds (log scale)")
    ax.set_ylabel("unique discriminatory inputs")
    ax.set_title("Discriminatory inputs found over time")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def write_report(results, out_dir, *, title: str = "fairnb report", intro: str = "",
                 sections: tuple[tuple[str, str], ...] = ()) -> Path:
    """Write ``out_dir/index.html`` (with ``timeline.png``) summarising ``results``.

    ``sections`` are extra ``(heading, html)`` blocks appended to the report (already-escaped HTML).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _plot_timeline(results, out / "timeline.png")
    summary = pd.DataFrame([r.summary() for r in results]).set_index("method")[list(SUMMARY_COLUMNS)]
    parts = [
        f"<h1>{html.escape(title)}</h1>",
        f"<p>{html.escape(intro)}</p>" if intro else "",
        "<h2>Summary</h2>",
        summary.to_html(escape=True, na_rep="-"),
        "<p>unique_idis_eidig counts unique full inputs; unique_idis_adf counts them without the protected "
        "attributes; success_rate = discriminatory candidates / candidates checked.</p>",
        "<h2>Discriminatory inputs over time</h2>",
        '<img src="timeline.png" alt="unique discriminatory inputs over time">',
    ]
    for r in results:
        parts += [f"<h2>Examples found by {html.escape(r.method)}</h2>",
                  r.pairs.head(8).to_html(escape=True, index=False, float_format="%.3f")]
    for heading, block in sections:
        parts += [f"<h2>{html.escape(heading)}</h2>", block]
    page = ("<!doctype html><html><head><meta charset='utf-8'><title>" + html.escape(title) + "</title>"
            "<style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222}"
            "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px}"
            "th{background:#f3f3f3}</style></head><body>" + "\n".join(parts) + "</body></html>")
    path = out / "index.html"
    path.write_text(page, encoding="utf-8")
    return path
