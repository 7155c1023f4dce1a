"""Hold-out re-run (issue 34): every tabular method on three published models fairnb is never tuned on.

The models and data are MAFT's heart, diabetes and students (Keras 2 ``.h5``, 30-20-15-10-5-1 sigmoid, and the
integer-coded CSVs; ``papers/reference-implementations.md`` §3.2), five benchmarks: H-a (heart, age: column 0),
H-g (heart, sex: 1), D-a (diabetes, Age: 7), S-a (students, age: 2), S-g (students, sex: 1). The seeds are the
training split (``train_test_split(random_state=42)``; test 0.4 for heart and diabetes, 0.2 then a 0.2 validation
split for students). Every tabular method of the registry (one name per class) runs with ``max_time`` and its
default sizes; a benchmark's methods run in one fresh process, in registry order. Reported per run: wall time of
``run()`` against ``max_time`` (past it by more than 1 s without a warning: a **silent overrun**), status, inputs
checked, pairs, the warnings it gave, and a re-check of up to ``--recheck`` of its pairs with the ``.h5`` loaded
by Keras itself (``keras.models.load_model``): a pair is genuine when the two decisions differ at 0.5.

Ignored arguments: on S-a (the 32-feature domain) each method runs twice with a count budget, once on the first
and once on the second half of the training rows as ``seeds=``; a method that takes seeds and reports the same
pairs from both **ignored** them; a method whose record says it takes none must refuse them (``ValueError``).

The files are not in ``shared/``; take them from MAFT's repository (``wangzh1998/MAFT``) into a folder::

    for f in datasets/diabetes datasets/heart_disease datasets/students \\
             models/original_models/{diabetes,heart,students}_model.h5; do git -C MAFT show HEAD:$f > DIR/$(basename $f); done
    python benchmarks/holdout.py --dir DIR --max-time 10            # -> benchmarks/results/holdout.md, .json
    python benchmarks/holdout.py --dir DIR --max-time 10 --benchmarks S-a --methods vbtx dice --no-write
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

BENCHMARKS = {   # name: (data file, model file, protected column, test share of the first split, validation split)
    "H-a": ("heart_disease", "heart_model.h5", 0, 0.4, False),
    "H-g": ("heart_disease", "heart_model.h5", 1, 0.4, False),
    "D-a": ("diabetes", "diabetes_model.h5", 7, 0.4, False),
    "S-a": ("students", "students_model.h5", 2, 0.2, True),
    "S-g": ("students", "students_model.h5", 1, 0.2, True),
}
SEEDS_CHECK = "S-a"
OVERRUN_S = 1.0


def benchmark_parts(folder: Path, name: str):
    """``(model, domain, X_train)`` of benchmark ``name`` from the files in ``folder``."""
    import pandas as pd
    from sklearn.model_selection import train_test_split

    from fairnb.domains import TabularDomain
    from fairnb.models import load_model

    data, model_file, column, test, validation = BENCHMARKS[name]
    frame = pd.read_csv(folder / data)
    X, y = frame.iloc[:, :-1].astype(int), frame.iloc[:, -1].to_numpy()
    X_train, _, y_train, _ = train_test_split(X, y, test_size=test, random_state=42)
    if validation:
        X_train, _, _, _ = train_test_split(X_train, y_train, test_size=0.2, random_state=42)
    domain = TabularDomain.from_data(X, protected=[str(X.columns[column])])
    return load_model(folder / model_file), domain, X_train.to_numpy()


def timed_run(method: str, model, domain, seeds, **params) -> dict:
    """One search; its numbers, its fairnb warnings and a sample of its pairs."""
    from fairnb.search import get_method

    search = get_method(method)(random_state=0, progress=False, **params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        r = search.run(model, domain, seeds=seeds)
        wall = time.perf_counter() - start
    ours = sorted({" ".join(str(w.message).split())[:300] for w in caught     # fairnb's point at the caller's line
                   if "site-packages" not in str(w.filename)})
    steps = np.diff(r.timeline["elapsed"].to_numpy())[1:]       # the batches after the first (a set-up's)
    return {"wall_s": round(wall, 2), "longest_batch_s": round(float(steps.max()), 2) if len(steps) else 0.0,
            "status": r.status, "tried": int(r.tried), "pairs": len(r),
            "unique_idis": r.count("eidig"), "warnings": ours, "inputs": r.inputs, "counterparts": r.counterparts}


def child(folder: Path, name: str, methods: list[str], max_time: float, recheck: int) -> None:
    """Run ``methods`` on benchmark ``name`` in this (fresh) process; one JSON line per run on stdout."""
    from fairnb.search.registry import method_record, seeds_for

    model, domain, X_train = benchmark_parts(folder, name)
    rng = np.random.default_rng(0)
    for method in methods:
        row = {"benchmark": name, "method": method, "max_time": max_time}
        try:
            got = timed_run(method, model, domain, seeds_for(method, X_train), max_time=max_time)
        except Exception as e:  # noqa: BLE001 - recorded, the next method runs
            row.update(status="raised", error=f"{type(e).__name__}: {e}"[:300])
            print(json.dumps(row), flush=True)
            continue
        inputs, counterparts = got.pop("inputs"), got.pop("counterparts")
        pick = rng.choice(len(inputs), min(recheck, len(inputs)), replace=False) if len(inputs) else []
        row.update(got, overrun_s=round(got["wall_s"] - max_time, 2),
                   sample=[inputs[pick].tolist(), counterparts[pick].tolist()])
        if name == SEEDS_CHECK:
            row["seeds_check"] = seeds_check(method, method_record(method).takes_seeds, model, domain, X_train)
        print(json.dumps(row), flush=True)


def seeds_check(method: str, takes: bool, model, domain, X_train) -> str:
    """``"used"``, ``"IGNORED"``, ``"refused"`` or ``"ACCEPTED"`` (seeds given to a method that takes none)."""
    half = len(X_train) // 2
    runs = []
    for seeds in (X_train[:half], X_train[half:]):
        try:
            got = timed_run(method, model, domain, seeds, max_tried=3000, max_time=10)
        except ValueError as e:
            if not takes and "seeds" in str(e):
                return "refused"
            return f"raised: {e}"[:200]
        if not takes:
            return "ACCEPTED"
        runs.append({tuple(x) for x in got["inputs"].tolist()})
    return "IGNORED" if runs[0] == runs[1] else "used"


def recheck(folder: Path, rows: list[dict]) -> None:
    """Each row's sample of pairs through the ``.h5`` loaded by Keras itself: ``genuine`` of ``rechecked``."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import keras

    models = {}
    for row in rows:
        sample = row.pop("sample", None)
        if not sample or not sample[0]:
            continue
        file = BENCHMARKS[row["benchmark"]][1]
        if file not in models:
            models[file] = keras.models.load_model(folder / file, compile=False)
        X, C = (np.asarray(s, dtype=np.float32) for s in sample)
        p = models[file].predict(np.concatenate([X, C]), verbose=0)[:, -1]
        px, pc = p[:len(X)], p[len(X):]
        genuine = (px > 0.5) != (pc > 0.5)
        row.update(rechecked=len(X), genuine=int(genuine.sum()),
                   near_threshold=int((~genuine & (np.minimum(abs(px - 0.5), abs(pc - 0.5)) < 1e-5)).sum()))


def verdict(row: dict) -> str:
    """``ok``, ``one batch`` (past by more than 1 s, but no more than its longest batch: the documented step),
    ``warned overrun`` (a warning says it ran past max_time), ``SILENT OVERRUN`` or ``raised``."""
    if row["status"] == "raised":
        return "raised"
    if row["overrun_s"] <= OVERRUN_S:
        return "ok"
    if row["overrun_s"] <= row.get("longest_batch_s", 0.0):
        return "one batch"
    return "warned overrun" if any("past max_time" in w for w in row["warnings"]) else "SILENT OVERRUN"


def report(rows: list[dict], command: str, loads: tuple[str, str], max_time: float) -> str:
    def cell(text) -> str:
        return " ".join(str(text).split()).replace("|", "\\|")[:160]

    silent = sum(verdict(r) == "SILENT OVERRUN" for r in rows)
    ignored = [f"{r['method']}: {r['seeds_check']}" for r in rows
               if r.get("seeds_check") not in (None, "used", "refused")]
    checked = sum(r.get("rechecked", 0) for r in rows)
    genuine = sum(r.get("genuine", 0) for r in rows)
    lines = [f"# Hold-out re-run: every tabular method on MAFT's heart, diabetes and students models "
             f"(max_time = {max_time:g} s)", "",
             f"`{command}`; {os.cpu_count()} CPUs shared; `uptime` before: `{loads[0]}`, after: `{loads[1]}`. "
             f"Each benchmark's methods ran in one fresh process in registry order (the first row of each is its "
             f"first search). Timings under load are indicative only.", "",
             f"**{len(rows)} runs: {silent} silent budget overruns (past max_time by more than {OVERRUN_S:g} s with no "
             f"warning), {len(ignored)} ignored arguments{': ' + '; '.join(ignored) if ignored else ''}; "
             f"{genuine:,} of {checked:,} re-checked pairs genuine with raw Keras.**", "",
             "| benchmark | method | wall s | overrun s | longest batch s | verdict | status | tried | pairs | "
             "unique IDIs | Keras genuine | seeds | warnings |", "|---|---|---:|---:|---:|---|---|---:|---:|---:|---|---|---|"]
    for r in rows:
        if r["status"] == "raised":
            lines.append(f"| {r['benchmark']} | {r['method']} | | | | raised | | | | | | | {cell(r['error'])} |")
            continue
        keras_cell = f"{r['genuine']}/{r['rechecked']}" if r.get("rechecked") else "-"
        batch = f"{r['longest_batch_s']:.2f}" if "longest_batch_s" in r else "-"
        lines.append(f"| {r['benchmark']} | {r['method']} | {r['wall_s']:.2f} | {r['overrun_s']:+.2f} | {batch} | "
                     f"{verdict(r)} | {r['status']} | {r['tried']:,} | {r['pairs']:,} | {r['unique_idis']:,} | "
                     f"{keras_cell} | {r.get('seeds_check', '')} | {cell('; '.join(r['warnings'])) or '-'} |")
    return "\n".join(lines) + "\n"


def tabular_methods() -> list[str]:
    """One registered name per tabular search class, in registry order."""
    from fairnb.search.registry import RECORDS

    names = {}
    for record in RECORDS.values():
        if record.inputs == "tabular":
            names.setdefault(record.target, record.name)
    return list(names.values())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, required=True, help="folder with MAFT's data files and .h5 models")
    parser.add_argument("--max-time", type=float, default=10.0)
    parser.add_argument("--benchmarks", nargs="+", default=list(BENCHMARKS), choices=list(BENCHMARKS))
    parser.add_argument("--methods", nargs="+", help="registered names (default: every tabular method)")
    parser.add_argument("--recheck", type=int, default=200, help="pairs per run re-checked with Keras")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--from-json", type=Path, help=argparse.SUPPRESS)   # re-write the table of a run's rows
    args = parser.parse_args(argv)
    methods = args.methods or tabular_methods()
    if args.from_json:
        saved = json.loads(args.from_json.read_text())
        (HERE / "results" / "holdout.md").write_text(report(saved["rows"], saved["command"], tuple(saved["uptime"]),
                                                            saved["max_time"]))
        return 0
    if args.child:
        child(args.dir, args.child, methods, args.max_time, args.recheck)
        return 0
    command = "python benchmarks/holdout.py " + " ".join(argv if argv is not None else sys.argv[1:])
    loads, rows = [subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()], []
    for name in args.benchmarks:
        done = subprocess.run([sys.executable, __file__, "--child", name, "--dir", str(args.dir), "--max-time",
                               str(args.max_time), "--recheck", str(args.recheck), "--methods", *methods],
                              capture_output=True, text=True, cwd=ROOT)
        got = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        if done.returncode:
            print(done.stderr[-2000:], file=sys.stderr)
        for row in got:
            print(f"{name} {row['method']:16s} {row.get('wall_s', '')} {row['status']} {row.get('pairs', '')} "
                  f"{row.get('seeds_check', '')} {row.get('warnings', row.get('error', ''))}"[:250], flush=True)
        rows += got
    loads.append(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    recheck(args.dir, rows)
    text = report(rows, command, tuple(loads), args.max_time)
    print(text)
    if not args.no_write:
        (HERE / "results" / "holdout.md").write_text(text)
        saved = {"command": command, "uptime": loads, "max_time": args.max_time, "rows": rows}
        (HERE / "results" / "holdout.json").write_text(json.dumps(saved, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
