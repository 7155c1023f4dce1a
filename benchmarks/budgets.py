"""Budgets are kept (issue 10, item 3): how far past ``max_time`` each method runs on a 32-feature domain.

The domain has 32 features of 4 values each (4^32 = 2^64 inputs, so distinct inputs cannot be coded
in an int64 and the distinct-input counting works on hashed rows), one of them protected; the model
is a random dense network (32-64-32-1, sigmoid) that depends on the protected attribute; the seeds
are 20,000 random inputs. Every method runs with ``max_time`` and its default (large) size budgets,
so the time budget ends it. Reported per method: the wall time of ``run()``, the overshoot past
``max_time``, the longest gap between two engine batches (the "one batch's time" the overshoot is
allowed), and the IDIs found.

``--benchmark C-g`` measures a published model instead (``$FAIRNB_MODELS``; issue 26, item 9: is a time budget
used?): the benchmark's training split is the seeds, the methods keep their default sizes, and the rows also
say how many seed rounds the search drew (``seed_rounds``, ``seeds_from_domain``; ``fairnb.search.seed_rounds``).

Usage::

    .venv/bin/python benchmarks/budgets.py                 # max_time 10 s, all methods (~2 min)
    .venv/bin/python benchmarks/budgets.py --max-time 5 --methods maft neuronfair
    .venv/bin/python benchmarks/budgets.py --benchmark C-g --max-time 30 --methods aequitas maft --json FILE

Writes ``benchmarks/results/budgets.md`` and ``budgets.json`` (with ``--benchmark``: the rows to ``--json``,
default ``benchmarks/results/budgets_<benchmark>.json``). Timings on a shared machine are
contended: the files record the CPU count and load average.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import fairnb  # noqa: E402
from fairnb.domains import Feature, TabularDomain  # noqa: E402
from fairnb.search import get_method  # noqa: E402
from fairnb.search.registry import seeds_for  # noqa: E402

METHODS = ["random", "aequitas", "adf", "eidig", "maft", "neuronfair", "sg"]


def wide_problem(d: int = 32, n_seeds: int = 20_000, seed: int = 0):
    """A ``d``-feature domain of 4 values each (one protected), a random biased MLP, and seeds."""
    rng = np.random.default_rng(seed)
    dom = TabularDomain([Feature("sex", 0, 1)] + [Feature(f"x{i}", 0, 3) for i in range(d - 1)], protected=["sex"])
    sizes = [d, 64, 32, 1]
    weights = [rng.normal(0, 1 / np.sqrt(a), (a, b)) for a, b in zip(sizes, sizes[1:])]
    weights[0][0] *= 8                                  # lean on the protected attribute
    model = fairnb.models.NumpyMLP(weights, [np.zeros(b) for b in sizes[1:]])
    seeds = np.column_stack([rng.integers(0, 2, n_seeds), rng.integers(0, 4, (n_seeds, d - 1))]).astype(float)
    return dom, model, seeds


def measure(method: str, max_time: float, dom, model, seeds) -> dict:
    search = get_method(method)(max_time=max_time, random_state=0, progress=False)
    if method == "random":
        search.set_params(n_samples=None)
    t0 = time.perf_counter()
    result = search.run(model, dom, seeds=seeds_for(search, seeds))
    wall = time.perf_counter() - t0
    gaps = np.diff(result.timeline["elapsed"].to_numpy())
    return {"method": method, "max_time": max_time, "wall_s": round(wall, 3), "overshoot_s": round(wall - max_time, 3),
            "longest_batch_s": round(float(gaps.max()) if len(gaps) else 0.0, 3), "status": result.status,
            "tried": result.tried, "idis": result.count(), "generated": result.extras.get("generated"),
            "seed_rounds": result.extras.get("seed_rounds"), "seeds_from_domain": result.extras.get("seeds_from_domain")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-time", type=float, default=10.0)
    ap.add_argument("--methods", nargs="*", default=METHODS)
    ap.add_argument("--benchmark", default=None, help="a published benchmark (e.g. C-g) instead of the wide problem")
    ap.add_argument("--json", default=None, help="with --benchmark: where the rows go")
    args = ap.parse_args()
    if args.benchmark:
        from fairnb.bench import load_benchmark

        _, data, model, seeds = load_benchmark(args.benchmark)
        dom = data.domain
    else:
        dom, model, seeds = wide_problem()
    rows = []
    for m in args.methods:
        rows.append(measure(m, args.max_time, dom, model, seeds))
        print(rows[-1], flush=True)
    machine = {"cpus": os.cpu_count(), "load_avg": [round(x, 2) for x in os.getloadavg()],
               "python": platform.python_version(), "domain_size": f"2^{int(np.log2(dom.size))}"}
    out = ROOT / "benchmarks" / "results"
    if args.benchmark:
        path = Path(args.json or out / f"budgets_{args.benchmark}.json")
        path.write_text(json.dumps({"machine": machine, "benchmark": args.benchmark, "rows": rows}, indent=1))
        return
    (out / "budgets.json").write_text(json.dumps({"machine": machine, "rows": rows}, indent=1))
    lines = [f"# Budgets kept: overshoot of max_time = {args.max_time:g} s on a 32-feature domain "
             f"({machine['domain_size']} inputs)",
             "", f"`python benchmarks/budgets.py --max-time {args.max_time:g}`; {machine['cpus']} CPUs shared, load "
             f"average {machine['load_avg']}. Overshoot = wall time of `run()` - max_time; it should stay under "
             "one batch's time (the longest gap between two engine batches).", "",
             "| method | wall s | overshoot s | longest batch s | status | tried | unique IDIs | distinct generated |",
             "|---|---:|---:|---:|---|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['method']} | {r['wall_s']:.2f} | {r['overshoot_s']:.2f} | {r['longest_batch_s']:.2f} | "
                     f"{r['status']} | {r['tried']:,} | {r['idis']:,} | "
                     f"{'-' if r['generated'] is None else format(r['generated'], ',')} |")
    (out / "budgets.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
