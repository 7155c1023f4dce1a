"""Suites, the CI gate and the saved seeds (issue #38): three measurements.

(a) **Saved seeds.** An AEQUITAS search of a census model (protected gender, 20,000 seeds of 12 features, the
    13-column file with its label) saved as ``.parquet``: the description's bytes with the seeds as JSON lists
    (as saved before, computed from the same Result) and now, with the seeds in ``<path>.seeds.npz``.
(b) **A suite of 100,000 tabular pairs.** A random search of the same census model stopped at 100,000 unique
    discriminatory inputs, saved with ``save_suite``: its files' bytes, and the time of ``fairnb.check`` on it
    (load and verify the checksums, re-check every pair, measure the natural rate), best of 3.
(c) **The gate's false failures.** Over ``--rounds`` random seeds: synthetic data with planted discrimination on
    sex (``make_synthetic(strength=2)``), a model trained on it (the planted model), a control trained on the same
    rows with sex held constant (it cannot read sex), and a model trained on data without the planted effect
    (``strength=0``) that does read sex. AEQUITAS (200 seeds) on the planted model gives the suite; the gate
    (``Gate()``: the natural rate's 95 % Wilson lower end above 0.05) judges the three models. The models are
    logistic regressions (``train_demo_model``'s MLP takes about 5 s a training on this shared machine).
(d) **The gate's level.** The exact probability (binomial, no simulation) that the gate fails a model whose true
    natural rate is exactly the limit, for several numbers of seeds.

Writes ``benchmarks/results/suites.{md,json}``:

    FAIRNB_DATA=../shared/data .venv/bin/python benchmarks/suites.py [--rounds 100]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import fairnb  # noqa: E402
from fairnb.bench import machine, save_report  # noqa: E402
from fairnb.search import get_method  # noqa: E402
from fairnb.testing import Gate  # noqa: E402


def _sizes(path: Path) -> dict:
    files = [path, Path(f"{path}.json"), Path(f"{path}.seeds.npz")]
    return {f.name: f.stat().st_size for f in files if f.exists()}


def saved_seeds(data, model, folder: Path) -> dict:
    r = get_method("aequitas")(n_seeds=20_000, max_tried=30_000, random_state=0, progress=False).run(
        model, data.domain, seeds=data.domain.clip(data.seed_inputs()))
    path = r.save(folder / "aequitas.parquet")
    meta = json.loads(Path(f"{path}.json").read_text())
    seeds = r.extras["seeds"]
    before_extras = {**meta["extras"], "seeds": {"__stored__": data.domain.to_columns(seeds).to_dict(orient="list")},
                     "seed_marks": list(r.extras["seed_marks"])}
    before = len(json.dumps({**meta, "extras": before_extras}))
    return {"seeds": list(seeds.shape), "pairs": len(r), "description_before_bytes": before, "files_now": _sizes(path)}


def big_suite(data, model, folder: Path) -> dict:
    r = fairnb.run_search(model, data.domain, method="random", max_found=100_000, random_state=0, progress=False)
    path = r.save_suite(folder / "suite.parquet")
    times = []
    for _ in range(3):
        start = time.perf_counter()
        checked = fairnb.check(model, path)
        times.append(time.perf_counter() - start)
    return {"pairs": len(r), "files": _sizes(path), "bytes": sum(_sizes(path).values()),
            "check_s": [round(t, 3) for t in times], "counts": checked.counts(),
            "natural": {k: v for k, v in checked.natural().items() if k in ("natural_rate", "natural_n")}}


def _logistic(X, y):
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(max_iter=2000).fit(X, y)


def gate_rounds(rounds: int, folder: Path) -> dict:
    gate = Gate()
    failed = {"planted": 0, "control": 0, "unplanted": 0}
    still = {k: [] for k in failed}
    rates = {k: [] for k in failed}
    for seed in range(rounds):
        data = fairnb.datasets.make_synthetic(n=3000, strength=2.0, random_state=seed)
        X, _, y, _ = data.split()
        sex = data.domain.index("sex")
        blind = X.copy()
        blind[:, sex] = 0
        plain = fairnb.datasets.make_synthetic(n=3000, strength=0.0, random_state=seed)
        Xp, _, yp, _ = plain.split()
        models = {"planted": _logistic(X, y), "control": _logistic(blind, y), "unplanted": _logistic(Xp, yp)}
        r = get_method("aequitas")(n_seeds=200, n_local=20, random_state=seed, progress=False).run(
            models["planted"], data.domain, seeds=data.seed_inputs())
        path = r.save_suite(folder / f"gate_{seed}.parquet")
        for name, model in models.items():
            checked = fairnb.check(model, path)
            failed[name] += bool(gate.failures(checked))
            still[name].append(checked.counts()["still"])
            rates[name].append(checked.natural()["natural_rate"])
    return {"rounds": rounds, "gate": {"natural_limit": gate.natural_limit, "max_still": gate.max_still},
            "failed": failed, "mean_natural_rate": {k: round(float(np.mean(v)), 4) for k, v in rates.items()},
            "max_natural_rate": {k: round(float(np.max(v)), 4) for k, v in rates.items()},
            "mean_still": {k: round(float(np.mean(v)), 1) for k, v in still.items()}}


def gate_level(limit: float = 0.05, sizes=(100, 200, 300, 1000, 10_000)) -> dict:
    """``{n: P(Wilson lower end > limit)}`` for k ~ Binomial(n, limit)."""
    from scipy.stats import binom

    from fairnb.stats import wilson_interval

    return {n: round(float(sum(binom.pmf(k, n, limit) for k in range(n + 1) if wilson_interval(k, n)[0] > limit)), 4)
            for n in sizes}


def markdown(report: dict) -> str:
    a, b, c = report["saved_seeds"], report["suite"], report["gate"]
    now = a["files_now"]
    json_now = next(v for k, v in now.items() if k.endswith(".json"))
    npz_now = next(v for k, v in now.items() if k.endswith(".npz"))
    lines = ["# Suites, the CI gate and the saved seeds (issue #38)", "",
             f"Command: `{report['command']}`", f"Machine: {report['machine']['platform']}, "
             f"{report['machine']['cpus']} CPUs; `uptime` before: `{report['uptime_before']}`; after: "
             f"`{report['uptime_after']}` (other work shared the CPUs).", "",
             "## (a) Saved seeds: census, AEQUITAS, 20,000 seeds x 12 features", "",
             "| | description (.json) | seeds (.npz) | pairs (.parquet) |", "|---|---|---|---|",
             f"| before (seeds as JSON lists) | {a['description_before_bytes']:,} | - | "
             f"{now['aequitas.parquet']:,} |",
             f"| now | {json_now:,} | {npz_now:,} | {now['aequitas.parquet']:,} |", "",
             "## (b) A suite of 100,000 tabular pairs (census, random search)", "",
             f"{b['pairs']:,} pairs; files {', '.join(f'{k} {v:,} B' for k, v in b['files'].items())}: "
             f"{b['bytes'] / 1e6:.2f} MB in all (target: under 5 MB). `fairnb.check` (load, verify, re-check every "
             f"pair, natural rate of {b['natural']['natural_n']:,} drawn inputs): {', '.join(map(str, b['check_s']))} s "
             f"(best {min(b['check_s']):.2f} s; target: under 2 s). Counts on the same model: {b['counts']}.", "",
             f"## (c) The gate over {c['rounds']} random seeds", "",
             f"Rule: fail when the natural rate's 95 % Wilson lower end is above {c['gate']['natural_limit']}.", "",
             "| model | failed the gate | mean natural rate | highest natural rate | mean pairs still discriminating |",
             "|---|---|---|---|---|"]
    for name, label in (("planted", "planted (trained on the planted data)"),
                        ("control", "control (same rows, sex held constant)"),
                        ("unplanted", "trained on data without the planted effect, reads sex")):
        lines.append(f"| {label} | {c['failed'][name]} of {c['rounds']} | {c['mean_natural_rate'][name]} | "
                     f"{c['max_natural_rate'][name]} | {c['mean_still'][name]} |")
    lines += ["", "## (d) The gate's level", "",
              "The probability that the gate fails a model whose true natural rate is exactly the limit 0.05 (exact "
              "binomial): " + ", ".join(f"{v:.2%} with {int(n):,} seeds" for n, v in report["level"].items()) + ".",
              "A model below the limit fails less often."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100)
    args = parser.parse_args()
    report = {"command": "python benchmarks/suites.py" + (f" --rounds {args.rounds}" if args.rounds != 100 else ""),
              "uptime_before": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()}
    data = fairnb.datasets.load("census", data_dir=os.environ.get("FAIRNB_DATA")).with_protected(["gender"])
    X, _, y, _ = data.split()
    model = _logistic(X, y)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        report["saved_seeds"] = saved_seeds(data, model, folder)
        report["suite"] = big_suite(data, model, folder)
        report["gate"] = gate_rounds(args.rounds, folder)
    report["level"] = gate_level()
    report["uptime_after"] = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    report["machine"] = machine()
    save_report(ROOT / "benchmarks" / "results" / "suites", report, markdown(report))


if __name__ == "__main__":
    main()
