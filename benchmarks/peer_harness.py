"""fairnb beside a peer harness on scikit-learn models (issue #26's target): the AFT authors' artifact
(github.com/toda-lab/AFT: AFT, VBT-X and THEMIS, run by its own ``exp.py`` under its own requirements) and fairnb's
methods, on the same models of Adult (the artifact's logistic regression, decision tree and MLP, and a gradient
boosting model trained by the artifact's own recipe), the same attribute ranges (the artifact's: each column's
minimum and maximum in its Adult.csv), protected attribute sex, the same budget per method.

Both sides are counted the same way: the pairs each method reports, re-checked with the model here (a pair counts
when its two inputs lie inside the ranges, differ only in sex and get different labels), and counted unordered (a
pair and its reverse are one, as the field counts). The artifact's budget is CPU time (``time.process_time``);
fairnb's ``max_time`` is wall-clock time, which on a shared machine gives fairnb less CPU, not more.

Usage (DIR: a clone of toda-lab/AFT; PY: a Python with the artifact's requirements.txt, e.g. numpy 1.24,
scikit-learn 1.3.1, z3-solver 4.12):

    python benchmarks/peer_harness.py --artifact DIR --artifact-python PY --budget 60 \\
        --out benchmarks/results/peer_harness.md
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REFERENCE_METHODS = ("aft", "vbtx", "themis")
FAIRNB_METHODS = ("random", "aequitas", "kosei", "expga", "grft", "aft", "maft")
MODELS = ("LogReg", "DecTree", "MLP", "GBDT")
SEX = 8


def run_in_artifact(artifact: Path, python: str, code: str, timeout: float) -> str:
    out = subprocess.run([python, "-W", "ignore", "-c", code], cwd=artifact, capture_output=True, text=True,
                         timeout=timeout)
    if out.returncode:
        raise RuntimeError(f"the artifact failed:\n{out.stderr[-2000:]}")
    return out.stdout


GBDT_RECIPE = {"n_estimators": 100, "random_state": 0}     # the artifact's GradientBoostingClassifier recipe, seeded


def ensure_model(artifact: Path, python: str, name: str) -> Path:
    """The artifact's model file; GBDT (not shipped) is trained by the artifact's recipe, seeded, when missing."""
    path = artifact / "FairnessTestCases" / f"{name}Adult.joblib"
    if not path.exists() and name == "GBDT":
        run_in_artifact(artifact, python, "import joblib, pandas as pd;"
                        "from sklearn.ensemble import GradientBoostingClassifier;"
                        "d = pd.read_csv('Datasets/Adult.csv').values;"
                        f"joblib.dump(GradientBoostingClassifier(**{GBDT_RECIPE!r}).fit(d[:, :-1], d[:, -1]), '{path}')",
                        1200)
    return path


def load_here(path: Path, frame: pd.DataFrame):
    """The model file in this environment; a gradient boosting pickle of another scikit-learn version does not
    load across versions, so it is trained here by the same seeded recipe (the table says how far they agree)."""
    import joblib

    try:
        return joblib.load(path)
    except (ModuleNotFoundError, AttributeError, ValueError):
        if not path.name.startswith("GBDT"):
            raise
        from sklearn.ensemble import GradientBoostingClassifier

        return GradientBoostingClassifier(**GBDT_RECIPE).fit(frame.values[:, :-1], frame.values[:, -1])


def reference_pairs(artifact: Path, python: str, model: str, method: str, budget: float, repeat: int):
    """``(x1, x2, tests, cpu seconds)`` of one run of the artifact's ``exp``."""
    (artifact / "TestData").mkdir(exist_ok=True)
    (artifact / "DiscData").mkdir(exist_ok=True)
    code = ("from exp import exp; import json; import aft, FairnessTestMethods as M\n"
            f"exp('Adult', '{model}', ('sex', {SEX}), '{method}', {budget}, 1, False, res_logging=True, "
            f"repeat_label={repeat})\n")
    run_in_artifact(artifact, python, code, budget * 4 + 600)
    return read_reference(artifact, model, method, budget, repeat)


def read_reference(artifact: Path, model: str, method: str, budget: float, repeat: int):
    """``(x1, x2, tests, cpu seconds)`` of a run of the artifact's ``exp`` that has ended (its line in ``log.txt``,
    the last with its label, as runs may overlap, and its pairs in ``DiscData``)."""
    label = f"{method}-{model}-Adult-sex-{repeat},"
    line = [r for r in (artifact / "log.txt").read_text().splitlines() if r.startswith(label)][-1]
    _, disc, tests, _, cpu, wall = line.split(",")[:6]
    rows = np.loadtxt(artifact / "DiscData" / f"{method}-{model}-Adult-sex-{budget}-{repeat}.csv", delimiter=",",
                      ndmin=2)
    rows = rows[:, :-1] if len(rows) else np.zeros((0, 13))
    return rows[0::2], rows[1::2], int(tests), float(cpu)


def check_pairs(model, X1, X2, lower, upper) -> dict:
    """Valid, re-checked, unordered unique pairs."""
    if not len(X1):
        return {"reported": 0, "valid": 0, "rechecked": 0, "unique_unordered": 0}
    inside = ((X1 >= lower) & (X1 <= upper) & (X2 >= lower) & (X2 <= upper)).all(axis=1)
    others = np.delete(np.arange(X1.shape[1]), SEX)
    valid = inside & (X1[:, others] == X2[:, others]).all(axis=1) & (X1[:, SEX] != X2[:, SEX])
    flips = np.zeros(len(X1), bool)
    flips[valid] = model.predict(X1[valid]) != model.predict(X2[valid])
    ok = valid & flips
    a, b = X1[ok], X2[ok]
    swap = a[:, SEX] > b[:, SEX]
    first, second = np.where(swap[:, None], b, a), np.where(swap[:, None], a, b)
    unique = len(np.unique(np.hstack([first, second]), axis=0)) if ok.any() else 0
    return {"reported": len(X1), "valid": int(valid.sum()), "rechecked": int(ok.sum()), "unique_unordered": unique}


def fairnb_pairs(model, frame: pd.DataFrame, lower, upper, method: str, budget: float, repeat: int, **params):
    from fairnb.domains import Feature, TabularDomain
    from fairnb.search import get_method

    names = list(frame.columns[:-1])
    domain = TabularDomain([Feature(n, int(lo), int(hi)) for n, lo, hi in zip(names, lower, upper)], protected=["sex"])
    search = get_method(method)(max_time=budget, random_state=repeat, progress=False, **params)
    result = search.run(model, domain, seeds=frame.values[:, :-1].astype(float))
    return result.inputs, result.counterparts, result.tried, result.elapsed


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--artifact", required=True, type=Path)
    p.add_argument("--artifact-python", required=True)
    p.add_argument("--budget", type=float, default=60)
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--methods", default=",".join(FAIRNB_METHODS))
    p.add_argument("--reference-methods", default=",".join(REFERENCE_METHODS))
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--append", action="store_true", help="add to the rows already in OUT's .json")
    args = p.parse_args(argv)

    frame = pd.read_csv(args.artifact / "Datasets" / "Adult.csv")
    lower, upper = frame.values[:, :-1].min(axis=0), frame.values[:, :-1].max(axis=0)
    rows = []
    for name in args.models.split(","):
        path = ensure_model(args.artifact, args.artifact_python, name)
        model = load_here(path, frame)
        probe = np.random.default_rng(0).integers(lower, upper + 1, (2000, len(lower)))
        np.save(args.artifact / "probe.npy", probe)
        theirs = json.loads(run_in_artifact(args.artifact, args.artifact_python,
                                            "import joblib, numpy as np, json;"
                                            f"m = joblib.load('{path}');"
                                            "print(json.dumps(m.predict(np.load('probe.npy')).tolist()))", 600))
        agree = float(np.mean(np.asarray(theirs) == model.predict(probe)))
        for repeat in range(args.repeats):
            for method in args.reference_methods.split(","):
                t = time.time()
                X1, X2, tests, cpu = reference_pairs(args.artifact, args.artifact_python, name, method, args.budget,
                                                     repeat)
                rows.append({"model": name, "harness": "AFT artifact", "method": method, "repeat": repeat,
                             "tests": tests, "seconds": round(cpu, 1), "wall_s": round(time.time() - t, 1),
                             "predictions_agree": agree, **check_pairs(model, X1, X2, lower, upper)})
                print(rows[-1], file=sys.stderr, flush=True)
            for method in args.methods.split(","):
                X1, X2, tried, elapsed = fairnb_pairs(model, frame, lower, upper, method, args.budget, repeat)
                rows.append({"model": name, "harness": "fairnb", "method": method, "repeat": repeat, "tests": tried,
                             "seconds": round(elapsed, 1), "wall_s": round(elapsed, 1), "predictions_agree": agree,
                             **check_pairs(model, X1, X2, lower, upper)})
                print(rows[-1], file=sys.stderr, flush=True)
    table = pd.DataFrame(rows)
    if args.append and args.out and args.out.with_suffix(".json").exists():
        table = pd.concat([pd.read_json(args.out.with_suffix(".json")), table], ignore_index=True)
    if args.out:
        args.out.with_suffix(".json").write_text(table.to_json(orient="records", indent=1))
        args.out.write_text(render(table, args))
    print(table.to_string())


def render(table: pd.DataFrame, args) -> str:
    mean = table.groupby(["model", "harness", "method"], sort=False).mean(numeric_only=True).reset_index()
    lines = [f"# fairnb beside the AFT artifact's harness, {args.budget:g} s per method",
             "", f"Command: `python benchmarks/peer_harness.py --artifact DIR --artifact-python PY --budget "
             f"{args.budget:g} --models {args.models} --methods {args.methods} --repeats {args.repeats}`", "",
             "Pairs re-checked with the model here and counted unordered (a pair and its reverse are one). The "
             "artifact's seconds are CPU seconds (its budget); fairnb's are wall-clock seconds (its budget).", "",
             "| model | harness | method | unique unordered pairs (re-checked) | reported | valid | tests | seconds |",
             "|---|---|---|---|---|---|---|---|"]
    for r in mean.itertuples():
        lines.append(f"| {r.model} | {r.harness} | {r.method} | {r.unique_unordered:,.0f} | {r.reported:,.0f} | "
                     f"{r.valid:,.0f} | {r.tests:,.0f} | {r.seconds:.1f} |")
    lines += ["", "| model | best of the artifact | best of fairnb | ratio |", "|---|---|---|---|"]
    for model, group in mean.groupby("model", sort=False):
        ref = group[group.harness == "AFT artifact"].sort_values("unique_unordered").iloc[-1]
        own = group[group.harness == "fairnb"].sort_values("unique_unordered").iloc[-1]
        ratio = own.unique_unordered / ref.unique_unordered if ref.unique_unordered else float("inf")
        lines.append(f"| {model} | {ref.method}: {ref.unique_unordered:,.0f} | {own.method}: "
                     f"{own.unique_unordered:,.0f} | {ratio:.1f}x |")
    agree = mean.groupby("model").predictions_agree.first()
    lines += ["", "The same model in both environments: predictions agree on 2,000 random inputs for "
              + ", ".join(f"{m} {a:.1%}" for m, a in agree.items()) + "."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
