"""EIDIG (white box) against MAFT (black box) on MLPClassifiers as wide as real one-hot tables: where the 10x of
issue #25 appears.

``benchmarks/formats.py`` (b) measures the census MLPClassifier (12 features): EIDIG 1.2-1.6x MAFT's unique IDIs per
second, because batched, MAFT's 13 forward passes cost about one forward and one backward pass. MAFT's estimate
costs one pass per feature, so the gap should grow with the number of features. Here, for each width ``d``: a table
of ``d`` integer features in 0..9 (the first, protected, in 0..1), labels from a noisy linear rule in which the
protected feature weighs 3 (the others drawn from a normal), ``MLPClassifier((64, 32), max_iter=20)`` trained on
20,000 rows, and both searches for the same time from the same 1,000 seeds.

Writes ``benchmarks/results/formats_wide.{md,json}``:

    .venv/bin/python benchmarks/formats_wide.py [--features 12 50 100 150] [--seconds 10]
"""
from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fairnb.bench import machine, save_report  # noqa: E402
from fairnb.domains import Feature, TabularDomain  # noqa: E402
from fairnb.models import SklearnModel  # noqa: E402
from fairnb.search import get_method  # noqa: E402


def wide_case(d: int, seconds: float) -> dict:
    """One width: EIDIG on the white-box MLPClassifier, MAFT on the estimator as a black box."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    rng = np.random.default_rng(0)
    X = rng.integers(0, 10, size=(20_000, d)).astype(float)
    X[:, 0] = rng.integers(0, 2, len(X))
    w = rng.normal(size=d)
    w[0] = 3.0
    y = ((X - 4.5) @ w / np.sqrt(d) + rng.normal(size=len(X)) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = MLPClassifier((64, 32), max_iter=20, random_state=0).fit(X, y)
    domain = TabularDomain([Feature("s", 0, 1)] + [Feature(f"x{i}", 0, 9) for i in range(1, d)], protected=["s"])
    rows = []
    for method, model in (("eidig", clf), ("maft", SklearnModel(clf))):
        r = get_method(method)(n_seeds=1000, seed_selection="as_given", max_time=seconds, random_state=0,
                               progress=False).run(model, domain, seeds=X[:1000])
        rows.append({"features": d, "method": method, "seconds": round(r.elapsed, 2), "tried": r.tried,
                     "unique_idis": r.count("eidig"), "idis_per_second": round(r.count("eidig") / r.elapsed, 1)})
    return {"features": d, "accuracy": round(float((clf.predict(X) == y).mean()), 4), "searches": rows,
            "eidig_over_maft": round(rows[0]["idis_per_second"] / max(rows[1]["idis_per_second"], 1e-9), 1)}


def markdown(report: dict, command: str) -> str:
    m = report["machine"]
    lines = ["# EIDIG against MAFT on wide MLPClassifiers (issue #25's 10x)", "", f"Command: `{command}`", "",
             f"Machine: {m['platform']}, {m['cpus']} CPUs (shared; load average {m.get('load_average')}); "
             f"measured {m['date']}. Each search ran for {report['seconds']} s (see the module docstring).", "",
             "| features | training accuracy | EIDIG tried | EIDIG unique IDIs | EIDIG IDIs/s | MAFT tried | "
             "MAFT unique IDIs | MAFT IDIs/s | EIDIG / MAFT |", "|---|---|---|---|---|---|---|---|---|"]
    for case in report["cases"]:
        e, f = case["searches"]
        lines.append(f"| {case['features']} | {case['accuracy']} | {e['tried']:,} | {e['unique_idis']:,} | "
                     f"{e['idis_per_second']:,} | {f['tried']:,} | {f['unique_idis']:,} | {f['idis_per_second']:,} | "
                     f"**{case['eidig_over_maft']}x** |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--features", type=int, nargs="+", default=[12, 50, 100, 150])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "formats_wide"))
    args = parser.parse_args(argv)
    report = {"machine": machine(), "seconds": args.seconds,
              "cases": [wide_case(d, args.seconds) for d in args.features]}
    command = "python benchmarks/formats_wide.py " + " ".join(argv if argv is not None else sys.argv[1:])
    save_report(args.out, report, markdown(report, command.strip()))
    return report


if __name__ == "__main__":
    main()
