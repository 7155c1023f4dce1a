"""Memory stays bounded (issue 11, item 12): peak RSS of the cases that used to take gigabytes.

Each case runs in its own process (so its peak resident memory, ``ru_maxrss``, is its own) under an
address-space limit, so that a regression fails here instead of swapping a shared machine:

``maft``       MAFT with 10,000 seeds x 200 features (was 6.5 GB: every finite-difference probe row of
               every seed in one model call);
``protected``  random search with a protected attribute of 100,000 values (was 3 GB and more in one
               batch: every variant of every row);
``eidig``      EIDIG with 100,000 seeds x 200 features, seeds as given (was 6.5 GB: every seed's variants
               and gradients in one call);
``testsgd``    TestSGD with 3 sensitive attributes of 8 values each (ran out of 8 GB after 115 s while
               enumerating rule sets: 13.6 million of its 16.6 million candidates are frequent; now
               refused with ``TooManyRuleSets`` once more than ``TestSGD.MAX_RULE_SETS`` are found).

The searches run under ``max_time`` (the peak is reached in the first batches); model input per call
is bounded by ``fairnb.oracle.MEMORY_BUDGET`` (64 MB), and so is the two-phase searches' global phase (seeds
in chunks that fit it).

Usage::

    .venv/bin/python benchmarks/reliability.py                  # all cases, ~2 min
    .venv/bin/python benchmarks/reliability.py --cases maft --max-time 30

Writes ``benchmarks/results/reliability.md`` and ``reliability.json``.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CASES = ["maft", "protected", "eidig", "testsgd"]
LIMIT_GB = 4.0


def _mlp(d: int, rng):
    import fairnb

    sizes = [d, 64, 32, 1]
    weights = [rng.normal(0, 1 / np.sqrt(a), (a, b)) for a, b in zip(sizes, sizes[1:])]
    weights[0][0] *= 8
    return fairnb.models.NumpyMLP(weights, [np.zeros(b) for b in sizes[1:]])


def _wide(d: int, n: int, rng):
    from fairnb.domains import Feature, TabularDomain

    dom = TabularDomain([Feature("sex", 0, 1)] + [Feature(f"x{i}", 0, 9) for i in range(d - 1)], protected=["sex"])
    seeds = np.column_stack([rng.integers(0, 2, n), rng.integers(0, 10, (n, d - 1))]).astype(float)
    return dom, seeds


def run_case(case: str, max_time: float) -> dict:
    """Runs in the child process: one case, then its own numbers."""
    sys.path.insert(0, str(ROOT))
    import fairnb
    from fairnb.domains import Feature, TabularDomain
    from fairnb.search import get_method

    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    info: dict = {}
    if case in ("maft", "eidig"):     # seeds x 200 features, as given (K-Means over them is not the point here)
        n = 10_000 if case == "maft" else 100_000
        dom, seeds = _wide(200, n, rng)
        model = _mlp(200, rng)
        info["rss_before_run_mb"] = _peak_mb()      # the interpreter, the libraries, the seeds and the model
        r = get_method(case)(n_seeds=n, n_local=100, seed_selection="as_given", max_time=max_time,
                             progress=False).run(model, dom, seeds=seeds)
        info.update(status=r.status, tried=r.tried, idis=r.count())
    elif case == "protected":
        feats = [Feature("zip", 0, 99_999)] + [Feature(f"x{i}", 0, 9) for i in range(12)]
        dom = TabularDomain(feats, protected=["zip"])
        model = fairnb.models.FunctionModel(lambda X: 1 / (1 + np.exp(-(X[:, 0] % 7 - 3 + X[:, 1] - 4.5))))
        r = get_method("random")(n_samples=2000, batch_size=2000, max_time=max_time, progress=False).run(model, dom)
        info = {"status": r.status, "tried": r.tried, "idis": r.count(), "variants_per_row": 100_000}
    elif case == "testsgd":
        import threading
        import warnings

        from fairnb.group import TestSGD, TooManyRuleSets

        feats = [Feature(f"s{i}", 0, 7) for i in range(3)] + [Feature(f"x{i}", 0, 9) for i in range(5)]
        dom = TabularDomain(feats, protected=["s0", "s1", "s2"])
        X = np.column_stack([rng.integers(0, 8, (20_000, 3)), rng.integers(0, 10, (20_000, 5))]).astype(float)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            search = TestSGD(random_state=0)
            timer = threading.Timer(max_time, search.stop)
            timer.start()
            try:
                g = search.run(lambda Z: (Z[:, 0] > 3).astype(float), X, domain=dom)
                info = {"status": g.info["status"], "rule_sets": g.info["n_frequent"],
                        "candidates": g.info["n_candidates"]}
            except TooManyRuleSets as e:
                info = {"status": "refused", "error": str(e).split(";")[0]}
            finally:
                timer.cancel()
        info["warned"] = any("candidate rule sets" in str(w.message) for w in caught)
    info["seconds"] = round(time.perf_counter() - t0, 1)
    info["peak_rss_mb"] = _peak_mb()
    return info


def _peak_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="*", default=CASES)
    ap.add_argument("--max-time", type=float, default=20.0)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        limit = int(LIMIT_GB * 2 ** 30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        print(json.dumps(run_case(args.child, args.max_time)))
        return
    rows = []
    for case in args.cases:
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, __file__, "--child", case, "--max-time", str(args.max_time)],
                           capture_output=True, text=True, timeout=args.max_time * 10 + 300)
        if p.returncode == 0:
            row = {"case": case, **json.loads(p.stdout.strip().splitlines()[-1])}
        else:
            row = {"case": case, "error": (p.stderr.strip().splitlines() or ["?"])[-1][:200],
                   "seconds": round(time.perf_counter() - t0, 1)}
        rows.append(row)
        print(row, flush=True)
    machine = {"cpus": os.cpu_count(), "load_avg": [round(x, 2) for x in os.getloadavg()]}
    out = ROOT / "benchmarks" / "results"
    (out / "reliability.json").write_text(json.dumps({"machine": machine, "max_time": args.max_time,
                                                      "limit_gb": LIMIT_GB, "rows": rows}, indent=1))
    lines = ["# Memory stays bounded: peak RSS per case", "",
             f"`python benchmarks/reliability.py --max-time {args.max_time:g}`; each case in its own process under a "
             f"{LIMIT_GB:g} GB address-space limit; {machine['cpus']} CPUs shared (load {machine['load_avg']}).", "",
             "| case | peak RSS MB | of which before the search MB | seconds | outcome |", "|---|---:|---:|---:|---|"]
    for r in rows:
        outcome = ", ".join(f"{k}={v}" for k, v in r.items()
                            if k not in ("case", "peak_rss_mb", "rss_before_run_mb", "seconds"))
        lines.append(f"| {r['case']} | {r.get('peak_rss_mb', '-')} | {r.get('rss_before_run_mb', '-')} | "
                     f"{r['seconds']} | {outcome} |")
    (out / "reliability.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
