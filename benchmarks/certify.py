"""Certification (issue #40): the shares ``fairnb.certify`` proves fair, unfair and leaves undecided, and its time.

(a) **The planted synthetic model** (``make_synthetic(n=4000, strength=2)``, ``train_demo_model``: 7-32-16-1,
    324,000 integer inputs, protected sex), with both bounds and both split rules, run to completion; next to it, the share
    of inputs the oracle finds discriminatory by brute force over the whole domain (a completed certificate
    must give exactly that).
(b) **Its fair twin** (``ignore_protected=True``).
(c) **The published census model** (``adult_model.h5``, 12-30-20-15-15-10-1, protected gender) at a budget of
    ``--census-time`` seconds, with both bounds: a large domain and a deep network.

Writes ``benchmarks/results/certify.{md,json}`` (keeping the FairQuant section of the ``.md``, which
``benchmarks/certify_fairquant.py`` writes):

    FAIRNB_DATA=../shared/data FAIRNB_MODELS=../shared/models .venv/bin/python benchmarks/certify.py [--census-time 60]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import fairnb  # noqa: E402
from fairnb.bench import machine, save_report  # noqa: E402
from fairnb.certification.boxes import enumerate_points  # noqa: E402
from fairnb.oracle import Oracle  # noqa: E402

FAIRQUANT = "\n## Side by side with FairQuant"     # the section benchmarks/certify_fairquant.py writes, kept here


def brute_force_share(model, domain) -> tuple[float, float]:
    """The share of the domain's inputs (protected values at their lowest) that are discriminatory, and seconds."""
    started = time.perf_counter()
    free = list(domain.non_protected)
    X, _ = enumerate_points(domain.lower[None], domain.upper[None], free)
    unfair = Oracle(model, domain).check(X).discriminatory
    return float(unfair.mean()), time.perf_counter() - started


def row(name: str, cert, **extra) -> dict:
    s = cert.summary()
    keys = ("certified_share", "falsified_share", "undecided_share", "witness_boxes_share", "certified_volume",
            "falsified_volume", "inputs", "certified_boxes", "falsified_boxes", "undecided_boxes", "witnesses",
            "boxes_bounded", "elapsed", "boxes_per_second", "status")
    return {"model": name, **{k: s[k] for k in keys}, **cert.params, **extra}


def markdown(rows: list[dict], info: dict) -> str:
    pct = fairnb.summaries.fmt_share
    lines = ["# Certification (`fairnb.certify`)", "",
             "Shares of the integer inputs (over the non-protected features); volume shares in the JSON.", "",
             "| model | bounds | split | status | certified | falsified | undecided (with witness) | brute-force IDI share | "
             "boxes bounded | boxes/s | time (s) |", "|" + "---|" * 11]
    for r in rows:
        brute = "" if r.get("brute_force_share") is None else pct(r["brute_force_share"])
        lines.append(f"| {r['model']} | {r['bounds']} | {r['split_by']} | {r['status']} | {pct(r['certified_share'])} | "
                     f"{pct(r['falsified_share'])} | {pct(r['undecided_share'])} ({pct(r['witness_boxes_share'])}) | "
                     f"{brute} | {r['boxes_bounded']:,} | {r['boxes_per_second']:,.0f} | {r['elapsed']:.1f} |")
    lines += ["", f"Machine: {info}", "",
              "Command: `FAIRNB_DATA=../shared/data FAIRNB_MODELS=../shared/models .venv/bin/python benchmarks/certify.py`"]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--census-time", type=float, default=60.0)
    args = parser.parse_args()
    rows = []
    data = fairnb.datasets.make_synthetic(n=4000, strength=2.0, random_state=0)
    planted = fairnb.train_demo_model(data, random_state=0)
    share, brute_seconds = brute_force_share(planted, data.domain)
    for bounds in ("backsubstitution", "symbolic"):
        for split_by in ("slope", "width"):
            cert = fairnb.certify(planted, data.domain, max_time=None, split_by=split_by, bounds=bounds)
            rows.append(row("synthetic, planted", cert, brute_force_share=share, brute_force_seconds=brute_seconds))
    twin = fairnb.train_demo_model(data, ignore_protected=True, random_state=0)
    rows.append(row("synthetic, fair twin", fairnb.certify(twin, data.domain, max_time=None),
                    brute_force_share=brute_force_share(twin, data.domain)[0]))
    census = fairnb.datasets.load("census", data_dir=os.environ.get("FAIRNB_DATA")).with_protected(["gender"])
    models = Path(os.environ.get("FAIRNB_MODELS", ROOT.parent / "shared" / "models"))
    adult = fairnb.models.load_model(models / "adult_model.h5")
    for bounds in ("backsubstitution", "symbolic"):
        cert = fairnb.certify(adult, census.domain, max_time=args.census_time, bounds=bounds)
        rows.append(row("census adult_model.h5, gender", cert))
    info = machine()
    out = ROOT / "benchmarks" / "results" / "certify"
    kept = out.with_suffix(".md").read_text().partition(FAIRQUANT)[1:] if out.with_suffix(".md").is_file() else ("", "")
    save_report(out, {"rows": rows, "machine": info}, markdown(rows, info) + "".join(kept),
                default=lambda o: o.item() if isinstance(o, np.generic) else str(o))


if __name__ == "__main__":
    main()
