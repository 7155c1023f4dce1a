"""VBT-X in fairnb beside the VBT-X and VBT of its authors' artifact, and fairnb's AFT (issue #26, item 3).

The paper's ordering claim (docs/methods/vbtx.md §4): VBT-X finds more discriminatory instances, more diverse, than
VBT. Measured on the AFT artifact's own Adult models (protected attribute sex), the same budget per method, every
method's pairs re-checked here and counted unordered (``peer_harness.check_pairs``); diversity is
``fairnb.results.metrics.diversity_distance`` of the re-checked pairs' first inputs. The artifact's reference runs
go side by side (their budget is CPU time, so running them together does not shorten them); fairnb's run one at a
time (their budget is wall-clock time).

Usage (DIR: a copy of toda-lab/AFT; PY: a Python with its requirements.txt):

    nice python benchmarks/vbtx.py --artifact DIR --artifact-python PY --budget 60 --out benchmarks/results/vbtx.md
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from peer_harness import (SEX, check_pairs, ensure_model, fairnb_pairs, load_here, read_reference,  # noqa: E402
                          reference_pairs)

REFERENCE = ("vbtx", "vbt")
OURS = {"vbtx": {}, "vbtx (uniform cells)": {"cell_values": "uniform"}, "aft": {}}


def diversity(model, X1, X2, lower, upper) -> float:
    from fairnb.domains import Feature, TabularDomain
    from fairnb.results.metrics import diversity_distance

    names = [f"f{i}" for i in range(len(lower))]
    dom = TabularDomain([Feature(n, int(lo), int(hi)) for n, lo, hi in zip(names, lower, upper)], protected=[SEX])
    inside = ((X1 >= lower) & (X1 <= upper) & (X2 >= lower) & (X2 <= upper)).all(axis=1)
    ok = np.zeros(len(X1), bool)
    ok[inside] = model.predict(X1[inside]) != model.predict(X2[inside])
    return diversity_distance(dom, X1[ok]) if ok.sum() > 1 else 0.0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--artifact", required=True, type=Path)
    p.add_argument("--artifact-python", required=True)
    p.add_argument("--budget", type=float, default=60)
    p.add_argument("--models", default="LogReg,MLP")
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--parts", default="fairnb,artifact",
                   help="which harnesses to run; the other's rows are kept from OUT's .json")
    p.add_argument("--reuse-reference", action="store_true",
                   help="read the artifact's runs of an earlier call from its log.txt and DiscData, not run them again")
    args = p.parse_args(argv)
    parts = args.parts.split(",")

    frame = pd.read_csv(args.artifact / "Datasets" / "Adult.csv")
    lower, upper = frame.values[:, :-1].min(axis=0), frame.values[:, :-1].max(axis=0)
    models = args.models.split(",")
    jobs = {}
    with ThreadPoolExecutor(len(models) * len(REFERENCE)) as pool:
        for name in models:
            ensure_model(args.artifact, args.artifact_python, name)
            for method in REFERENCE if "artifact" in parts else ():
                jobs[name, method] = None if args.reuse_reference else pool.submit(
                    reference_pairs, args.artifact, args.artifact_python, name, method, args.budget, 0)
        rows = []
        for name in models:
            model = load_here(args.artifact / "FairnessTestCases" / f"{name}Adult.joblib", frame)
            for label, params in OURS.items() if "fairnb" in parts else ():
                X1, X2, tried, times = fairnb_pairs(model, frame, lower, upper, label.split()[0], args.budget, 0,
                                                    **params)
                rows.append({"model": name, "harness": "fairnb", "method": label, "tests": tried,
                             "seconds": round(times["seconds"], 1), **check_pairs(model, X1, X2, lower, upper),
                             "diversity": diversity(model, X1, X2, lower, upper)})
                print(rows[-1], file=sys.stderr, flush=True)
        for (name, method), job in jobs.items():
            model = load_here(args.artifact / "FairnessTestCases" / f"{name}Adult.joblib", frame)
            X1, X2, tests, times = job.result() if job else read_reference(args.artifact, name, method, args.budget, 0)
            rows.append({"model": name, "harness": "artifact", "method": method, "tests": tests,
                         "seconds": round(times["seconds"], 1), **check_pairs(model, X1, X2, lower, upper),
                         "diversity": diversity(model, X1, X2, lower, upper)})
            print(rows[-1], file=sys.stderr, flush=True)
    table = pd.DataFrame(rows)
    if args.out and args.out.with_suffix(".json").exists():
        kept = pd.read_json(args.out.with_suffix(".json"))
        table = pd.concat([kept[~kept.harness.isin(parts)], table], ignore_index=True)
    print(table.to_string())
    if args.out:
        args.out.with_suffix(".json").write_text(table.to_json(orient="records", indent=1))
        args.out.write_text(render(table, args))


def render(table, args) -> str:
    lines = [f"# VBT-X: fairnb beside its authors' artifact, {args.budget:g} s per method", "",
             f"Command: `nice python benchmarks/vbtx.py --artifact DIR --artifact-python PY --budget {args.budget:g} "
             f"--models {args.models} --out benchmarks/results/vbtx.md` (DIR: a copy of github.com/toda-lab/AFT, PY: "
             "a Python with its requirements.txt); one repeat, load average "
             f"{os.getloadavg()[0]:.0f} on 2 CPUs when it ended.", "",
             "Adult (the artifact's models and attribute ranges), protected attribute sex. Pairs re-checked with the "
             "model here and counted unordered; precision = unique re-checked pairs per test case; diversity = mean "
             "range-normalised L1 distance between two found inputs (`diversity_distance`). The artifact's seconds "
             "are CPU seconds (its budget), fairnb's wall-clock seconds (its budget).", "",
             "| model | harness | method | unique pairs (re-checked) | reported | valid | tests | precision | "
             "diversity | seconds |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in table.itertuples():
        precision = r.unique_unordered / r.tests if r.tests else 0.0
        lines.append(f"| {r.model} | {r.harness} | {r.method} | {r.unique_unordered:,} | {r.reported:,} | "
                     f"{r.valid:,} | {r.tests:,} | {precision:.3f} | {r.diversity:.3f} | {r.seconds:.1f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    t0 = time.time()
    main()
    print(f"{time.time() - t0:.0f} s", file=sys.stderr)
