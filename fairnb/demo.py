"""``fairnb demo``: the main job on the embedded default, offline, in seconds.

It generates synthetic census-like data with planted discrimination against ``sex``, trains a
small network on it, runs the available search methods under a time budget, checks the findings
against the planted ground truth, prints a summary and writes an HTML report.

Example
-------
>>> import tempfile
>>> summary = run_demo(tempfile.mkdtemp(), seconds=0.5, methods=("random",), quiet=True)
>>> summary["methods"]["random"]["unique_idis_eidig"] > 0
True
"""
from __future__ import annotations

import html
import time
from pathlib import Path

from . import accuracy, datasets, train_demo_model
from .oracle import Oracle
from .report import write_report
from .search import METHODS, get_method

DEMO_METHODS = ("random", "aequitas", "sg", "adf", "eidig", "neuronfair", "maft")


def run_demo(out_dir="fairnb-report", *, seconds: float = 10.0, max_found: int = 20_000, methods=DEMO_METHODS,
             quiet: bool = False) -> dict:
    """Run the demo; returns a JSON-serialisable summary. Each method runs until ``seconds`` pass or
    it has found ``max_found`` unique IDIs; ``methods`` not registered are skipped."""
    say = (lambda *a: None) if quiet else print
    t0 = time.perf_counter()
    data = datasets.make_synthetic(n=6000, strength=2.0, random_state=0)
    say(f"data:  {data.description}")
    model = train_demo_model(data, random_state=0)
    X_train, X_test, y_train, y_test = data.split()
    say(f"model: {model!r}, test accuracy {accuracy(model, X_test, y_test):.3f}")
    truth = Oracle(data.info["true_model"], data.domain)

    results, summary = [], {"dataset": data.name, "methods": {}}
    for name in [m for m in methods if m in METHODS]:
        search = get_method(name)(max_time=seconds, max_found=max_found, random_state=0, progress=False)
        result = search.run(model, data.domain, seeds=X_train)
        found = result.inputs
        agree = float(truth.is_discriminatory(found).mean()) if len(found) else None
        s = {**result.summary(), "share_confirmed_by_ground_truth": None if agree is None else round(agree, 4)}
        summary["methods"][name] = s
        results.append(result)
        say(f"{name:>10}: {s['unique_idis_eidig']:>7} unique IDIs ({s['unique_idis_adf']} without sex) "
            f"from {s['tried']} tried in {s['elapsed_s']:.1f} s; "
            f"{'' if agree is None else f'{100 * agree:.0f}% also unfair under the planted ground truth'}")
    intro = (f"{data.description} Model: {model!r}, test accuracy {accuracy(model, X_test, y_test):.3f}. "
             f"Each method ran for at most {seconds:g} s or until it found {max_found} unique IDIs.")
    truth_table = "<ul>" + "".join(
        f"<li>{html.escape(m)}: {html.escape(str(s['share_confirmed_by_ground_truth']))} of its inputs are also "
        "discriminatory under the planted (true) model</li>" for m, s in summary["methods"].items()) + "</ul>"
    path = write_report(results, out_dir, title="fairnb demo: planted discrimination on synthetic data",
                        intro=intro, sections=(("Checked against the planted ground truth", truth_table),))
    summary["report"] = str(Path(path).resolve())
    summary["seconds"] = round(time.perf_counter() - t0, 2)
    say(f"report: {summary['report']}")
    return summary
