"""Budgets are kept (issue 10, item 3; issue 34, item 4): how far past ``max_time`` each method runs on a 32-feature
domain, in its first search in a fresh process.

The domain has 32 features of 4 values each (4^32 = 2^64 inputs, so distinct inputs cannot be coded
in an int64 and the distinct-input counting works on hashed rows), one of them protected; the model
is a random dense network (32-64-32-1, sigmoid) that depends on the protected attribute; the seeds
are 20,000 random inputs. Every tabular method of the registry (one name per class) runs with ``max_time`` and its
default (large) size budgets, so the time budget ends it, in its own fresh Python process: its first search there
(the one-time set-up included), then a second one. Reported per method: the import of its module, the wall time of
``run()``, the overshoot past ``max_time``, the second search's wall time, the longest gap between two engine
batches (the "one batch's time" the overshoot is allowed), the IDIs found and the warning a search gave.

``--benchmark C-g`` measures a published model instead (``$FAIRNB_MODELS``; issue 26, item 9: is a time budget
used?): the benchmark's training split is the seeds, the methods keep their default sizes, and the rows also
say how many seed rounds the search drew (``seed_rounds``, ``seeds_from_domain``; ``fairnb.search.engine.seed_rounds``).

Usage::

    .venv/bin/python benchmarks/budgets.py --max-time 5    # every tabular method (~4 min)
    .venv/bin/python benchmarks/budgets.py --max-time 5 --methods maft neuronfair
    .venv/bin/python benchmarks/budgets.py --benchmark C-g --max-time 30 --methods aequitas maft --json FILE

Writes ``benchmarks/results/budgets.md`` and ``budgets.json`` (with ``--benchmark``: the rows to ``--json``,
default ``benchmarks/results/budgets_<benchmark>.json``). Timings on a shared machine are
contended: the files record the CPU count and ``uptime`` before and after.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
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



def tabular_methods() -> list[str]:
    """One registered name per search class that runs on a tabular domain (not the text and image methods)."""
    from fairnb.search import METHODS as REGISTRY

    names = {}
    for name in REGISTRY:
        cls = get_method(name)
        if cls.domain_needs and "substitutions" not in cls.domain_needs:
            names.setdefault(cls, name)
    return list(names.values())


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
    """One search's row: the wall time of its ``run()``."""
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
            "seed_rounds": result.extras.get("seed_rounds"),
            "seeds_from_domain": result.extras.get("seeds_from_domain"), "warnings": []}


def measure_fresh(method: str, max_time: float) -> dict:
    """``measure`` in a fresh Python process (``--child``): the import of the method's module (``import_s``), its
    first search, then a second one in the same process (``second_wall_s``); a child still running after
    ``max(120, 20 max_time)`` s is ended and its row says so."""
    limit = max(120.0, 20 * max_time)
    try:
        out = subprocess.run([sys.executable, __file__, "--child", method, "--max-time", str(max_time)],
                             capture_output=True, text=True, check=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return {"method": method, "max_time": max_time, "import_s": float("nan"), "wall_s": limit,
                "overshoot_s": limit - max_time, "second_wall_s": float("nan"), "longest_batch_s": float("nan"),
                "status": f"still running after {limit:g} s", "tried": 0, "idis": 0, "warnings": []}
    return json.loads(out.stdout.strip().splitlines()[-1])


def child(method: str, max_time: float):
    """The body of a fresh process: the wide problem, two searches, the first one's row (as JSON on stdout)."""
    import warnings

    dom, model, seeds = wide_problem()
    t0 = time.perf_counter()
    get_method(method)                       # the method's module, imported on first use
    import_s = round(time.perf_counter() - t0, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        row = measure(method, max_time, dom, model, seeds)
    row["warnings"] = [str(w.message)[:200] for w in caught if issubclass(w.category, RuntimeWarning)]
    row["import_s"], row["second_wall_s"] = import_s, measure(method, max_time, dom, model, seeds)["wall_s"]
    print(json.dumps(row))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-time", type=float, default=10.0)
    ap.add_argument("--methods", nargs="*", default=None, help="default: every tabular method in the registry")
    ap.add_argument("--benchmark", default=None, help="a published benchmark (e.g. C-g) instead of the wide problem")
    ap.add_argument("--json", default=None, help="with --benchmark: where the rows go")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child, args.max_time)
    methods = args.methods or tabular_methods()
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    if args.benchmark:
        from fairnb.bench import load_benchmark

        _, data, model, seeds = load_benchmark(args.benchmark)
        rows = [measure(m, args.max_time, data.domain, model, seeds) for m in methods]
        machine = {"cpus": os.cpu_count(), "uptime": load, "python": platform.python_version()}
        path = Path(args.json or ROOT / "benchmarks" / "results" / f"budgets_{args.benchmark}.json")
        path.write_text(json.dumps({"machine": machine, "benchmark": args.benchmark, "rows": rows}, indent=1))
        return
    rows = []
    for m in methods:
        rows.append(measure_fresh(m, args.max_time))
        print(rows[-1], flush=True)
    after = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    machine = {"cpus": os.cpu_count(), "uptime_before": load, "uptime_after": after,
               "python": platform.python_version(), "domain_size": f"2^{int(np.log2(wide_problem(n_seeds=1)[0].size))}"}
    out = ROOT / "benchmarks" / "results"
    (out / "budgets.json").write_text(json.dumps({"machine": machine, "rows": rows}, indent=1))
    lines = [f"# Budgets kept: overshoot of max_time = {args.max_time:g} s on a 32-feature domain "
             f"({machine['domain_size']} inputs)",
             "", f"`python benchmarks/budgets.py --max-time {args.max_time:g}`; {machine['cpus']} CPUs shared; "
             f"`uptime` before: `{load}`, after: `{after}`. Each method runs in a fresh Python process: the row is its "
             "first search there, `2nd wall s` a second search in the same process; `import s` the import of the "
             "method's module before the first (outside `max_time`). Overshoot = wall time of `run()` - max_time.", "",
             "| method | import s | wall s | overshoot s | 2nd wall s | longest batch s | status | tried | unique IDIs "
             "| warning |", "|---|---:|---:|---:|---:|---:|---|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['method']} | {r['import_s']:.2f} | {r['wall_s']:.2f} | {r['overshoot_s']:.2f} | "
                     f"{r['second_wall_s']:.2f} | "
                     f"{r['longest_batch_s']:.2f} | {r['status']} | {r['tried']:,} | {r['idis']:,} | "
                     f"{'; '.join(r['warnings'])[:120] or '-'} |")
    (out / "budgets.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
