"""fairnb beside a peer harness on scikit-learn models (issue #26's target): the AFT authors' artifact
(github.com/toda-lab/AFT: AFT, VBT-X and THEMIS, run by its own ``exp.py`` under its own requirements) and fairnb's
methods, on the same models of Adult (the artifact's logistic regression and MLP files; a gradient boosting model, a
decision tree and a random forest trained by the artifact's own recipes, seeded, in each environment), the same
attribute ranges (the artifact's: each column's minimum and maximum in its Adult.csv), protected attribute sex, the
same budget per method.

Both sides are counted the same way: the pairs each method reports, re-checked with the model here (a pair counts
when its two inputs lie inside the ranges, differ only in sex and get different labels), and counted unordered (a
pair and its reverse are one, as the field counts). The artifact's budget is CPU time (``time.process_time``);
fairnb's ``max_time`` is wall-clock time, which on a shared machine gives fairnb less CPU, not more. Each row also
records the search's wall and CPU seconds (for IDIs per second on both clocks) and the machine's load meanwhile.

Usage (DIR: a clone of toda-lab/AFT; PY: a Python with the artifact's requirements.txt, e.g. numpy 1.24,
scikit-learn 1.3.1, z3-solver 4.12):

    python benchmarks/peer_harness.py --artifact DIR --artifact-python PY --budget 60 \\
        --out benchmarks/results/peer_harness.md

Runs made in parallel (each with its own copy of DIR, since ``exp`` appends to its log.txt, and its own ``--out``)
are joined with ``--models '' --merge A.json B.json ... --out OUT``.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

REFERENCE_METHODS = ("aft", "vbtx", "themis")
FAIRNB_METHODS = ("random", "aequitas", "kosei", "expga", "grft", "aft", "maft")
MODELS = ("LogReg", "DecTreeRebuilt", "RanForestRebuilt", "MLP", "GBDT")
SEX = 8


def run_in_artifact(artifact: Path, python: str, code: str, timeout: float) -> str:
    out = subprocess.run([python, "-W", "ignore", "-c", code], cwd=artifact, capture_output=True, text=True,
                         timeout=timeout)
    if out.returncode:
        raise RuntimeError(f"the artifact failed:\n{out.stderr[-2000:]}")
    return out.stdout


# The artifact's recipes (its FairnessTestCases/TrainClassifierUnderTest.py), seeded so that both environments build
# the same model: its shipped GBDT and RanForest files for Adult are missing, and its DecTree pickle (scikit-learn
# 1.3) returns leaf counts from predict_proba under 1.9. A recipe model is trained in each environment from the same
# rows; the table reports how far the two agree.
RECIPES = {
    "GBDT": "sklearn.ensemble:GradientBoostingClassifier(n_estimators=100, random_state=0)",
    "DecTreeRebuilt": "sklearn.tree:DecisionTreeClassifier(criterion='gini', splitter='best', max_depth=None, "
                      "random_state=0)",
    "RanForestRebuilt": "sklearn.ensemble:RandomForestClassifier(n_estimators=50, criterion='gini', random_state=0)",
}


def recipe_code(name: str, csv: Path) -> str:
    """Python that trains ``name`` by its recipe on the rows of ``csv`` (the artifact's Adult.csv) into ``model``."""
    module, call = RECIPES[name].split(":", 1)
    return (f"import pandas as pd; from {module} import {call.split('(')[0]};"
            f"d = pd.read_csv('{csv}').values;"
            f"model = {call}.fit(d[:, :-1], d[:, -1])")


def ensure_model(artifact: Path, python: str, name: str) -> Path:
    """The artifact's model file; a recipe model is trained in the artifact's environment when missing."""
    path = artifact / "FairnessTestCases" / f"{name}Adult.joblib"
    if not path.exists() and name in RECIPES:
        run_in_artifact(artifact, python, recipe_code(name, artifact / "Datasets" / "Adult.csv")
                        + f"; import joblib; joblib.dump(model, '{path}')", 1200)
    return path


def load_here(path: Path, name: str):
    """The model in this environment: a recipe model is trained here by the same seeded recipe (pickles do not
    carry across scikit-learn versions), any other is the artifact's file."""
    import joblib

    if name not in RECIPES:
        return joblib.load(path)
    scope: dict = {}
    exec(recipe_code(name, path.parent.parent / "Datasets" / "Adult.csv"), scope)
    return scope["model"]


class LoadSampler:
    """Samples the machine's one-minute load average every ``every`` seconds while a run goes on.

    >>> with LoadSampler(every=0.01) as load:
    ...     time.sleep(0.05)
    >>> load.summary()["load_max"] >= load.summary()["load_mean"] >= 0
    True
    """

    def __init__(self, every: float = 5.0):
        self.every, self.samples, self._stop = every, [], threading.Event()

    def __enter__(self):
        self.samples.append(os.getloadavg()[0])
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._stop.wait(self.every):
            self.samples.append(os.getloadavg()[0])

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.samples.append(os.getloadavg()[0])

    def summary(self) -> dict:
        return {"load_mean": round(float(np.mean(self.samples)), 2), "load_max": round(float(max(self.samples)), 2)}


def cpu_seconds(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def reference_pairs(artifact: Path, python: str, model: str, method: str, budget: float, repeat: int):
    """``(x1, x2, tests, times)`` of one run of the artifact's ``exp``; ``times`` holds the CPU seconds it counted
    against its budget (``seconds``), the wall seconds of its search (``search_wall_s``), and the wall and CPU
    seconds of its whole process (``wall_s``, ``cpu_s``: Python's start, loading the model, writing its files)."""
    (artifact / "TestData").mkdir(exist_ok=True)
    (artifact / "DiscData").mkdir(exist_ok=True)
    code = ("from exp import exp; import json; import aft, FairnessTestMethods as M\n"
            f"exp('Adult', '{model}', ('sex', {SEX}), '{method}', {budget}, 1, False, res_logging=True, "
            f"repeat_label={repeat})\n")
    cpu_before, wall_before = cpu_seconds(resource.RUSAGE_CHILDREN), time.time()
    run_in_artifact(artifact, python, code, budget * 30 + 600)
    times = {"wall_s": time.time() - wall_before, "cpu_s": cpu_seconds(resource.RUSAGE_CHILDREN) - cpu_before}
    x1, x2, tests, counted = read_reference(artifact, model, method, budget, repeat)
    return x1, x2, tests, {**counted, **times}


def read_reference(artifact: Path, model: str, method: str, budget: float, repeat: int):
    """``(x1, x2, tests, times)`` of a run of the artifact's ``exp`` that has ended: its line in ``log.txt`` (the
    last with its label, as runs may overlap; ``times``: the CPU seconds it counted against its budget,
    ``seconds``, and the wall seconds of its search, ``search_wall_s``) and its pairs in ``DiscData``."""
    label = f"{method}-{model}-Adult-sex-{repeat},"
    line = [r for r in (artifact / "log.txt").read_text().splitlines() if r.startswith(label)][-1]
    _, disc, tests, _, cpu, wall = line.split(",")[:6]
    rows = np.loadtxt(artifact / "DiscData" / f"{method}-{model}-Adult-sex-{budget}-{repeat}.csv", delimiter=",",
                      ndmin=2)
    rows = rows[:, :-1] if len(rows) else np.zeros((0, 13))
    return rows[0::2], rows[1::2], int(tests), {"seconds": float(cpu), "search_wall_s": float(wall)}


def check_pairs(model, X1, X2, lower, upper, protected: int = SEX, material: float | None = None,
                block: int = 1 << 20) -> dict:
    """Valid, re-checked, unordered unique pairs: a pair is valid when its inputs lie inside ``[lower, upper]``
    and differ only in column ``protected``, re-checked when ``model.predict`` labels them differently. With
    ``material``, also ``material_unordered``: the unique pairs whose probability of class 1 (``predict_proba``)
    differs by ``material`` or more, the pairs that move a decision by more than a hair.

    Checked ``block`` rows at a time, each unordered pair counted by one integer (its lower input's mixed-radix
    code over the bounds and the other's protected value), so tens of millions of pairs fit in a few GB."""
    if not len(X1):
        return {"reported": 0, "valid": 0, "rechecked": 0, "unique_unordered": 0,
                **({} if material is None else {"material_unordered": 0})}
    from fairnb.counting import mixed_radix

    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    place = mixed_radix(np.append(lower, 0), np.append(upper, upper[protected] - lower[protected]))  # + other's value
    if place is None:
        raise ValueError("the pairs' codes would not fit in 64 bits")
    others = np.delete(np.arange(X1.shape[1]), protected)
    valid_n = ok_n = 0
    codes, rows = [], []
    for i in range(0, len(X1), block):
        a, b = np.asarray(X1[i:i + block], float), np.asarray(X2[i:i + block], float)
        inside = ((a >= lower) & (a <= upper) & (b >= lower) & (b <= upper)).all(axis=1)
        valid = inside & (a[:, others] == b[:, others]).all(axis=1) & (a[:, protected] != b[:, protected])
        flips = np.zeros(len(a), bool)
        flips[valid] = model.predict(a[valid]) != model.predict(b[valid])
        ok = np.flatnonzero(valid & flips)
        valid_n, ok_n = valid_n + int(valid.sum()), ok_n + len(ok)
        a, b = a[ok], b[ok]
        if not (np.array_equal(a, np.round(a)) and np.array_equal(b, np.round(b))):
            raise ValueError("the pairs hold values that are not whole numbers; the ranges are integer codes")
        first = np.where((a[:, protected] > b[:, protected])[:, None], b, a)
        other = np.maximum(a[:, protected], b[:, protected]) - lower[protected]
        codes.append((first - lower).astype(np.int64) @ place[:-1] + other.astype(np.int64))
        rows.append(i + ok)
    codes, rows = np.concatenate(codes), np.concatenate(rows)
    at = rows[np.unique(codes, return_index=True)[1]]
    out = {"reported": len(X1), "valid": valid_n, "rechecked": ok_n, "unique_unordered": len(at)}
    if material is not None:
        out["material_unordered"] = sum(
            int((np.abs(model.predict_proba(np.asarray(X1[at[j:j + 65_536]], float))[:, 1]
                        - model.predict_proba(np.asarray(X2[at[j:j + 65_536]], float))[:, 1]) >= material).sum())
            for j in range(0, len(at), 65_536))    # in blocks: bounded memory
    return out


def fairnb_pairs(model, frame: pd.DataFrame, lower, upper, method: str, budget: float, repeat: int,
                 clock: str = "wall", **params):
    """``(x1, x2, tests, times)`` of one fairnb search; its budget is ``budget`` wall-clock seconds (``max_time``)
    or, with ``clock="cpu"``, ``budget`` seconds of this process's CPU time, the artifact's clock (the search is
    stopped at its first batch past them; ``max_time`` is then a generous wall-clock cap)."""
    from fairnb.domains import Feature, TabularDomain
    from fairnb.search import get_method

    names = list(frame.columns[:-1])
    domain = TabularDomain([Feature(n, int(lo), int(hi)) for n, lo, hi in zip(names, lower, upper)], protected=["sex"])
    search = get_method(method)(max_time=budget if clock == "wall" else budget * 60, random_state=repeat,
                                progress=False, **params)
    cpu_before, wall_before = time.process_time(), time.time()

    def cpu_budget(event):
        if time.process_time() - cpu_before >= budget:
            search.stop()

    result = search.run(model, domain, seeds=frame.values[:, :-1].astype(float),
                        listeners=(cpu_budget,) if clock == "cpu" else ())
    cpu = time.process_time() - cpu_before
    times = {"seconds": result.elapsed if clock == "wall" else cpu, "search_wall_s": result.elapsed,
             "wall_s": time.time() - wall_before, "cpu_s": cpu}
    return result.inputs, result.counterparts, result.tried, times


def names(text: str) -> list[str]:
    return [n for n in text.split(",") if n]


def agreement(artifact: Path, python: str, path: Path, model, inputs: np.ndarray) -> float:
    """Share of ``inputs`` on which the model file in the artifact's environment and ``model`` here agree."""
    with tempfile.NamedTemporaryFile(suffix=".npy") as probe:
        np.save(probe.name, inputs)
        theirs = json.loads(run_in_artifact(artifact, python,
                                            "import joblib, numpy as np, json;"
                                            f"m = joblib.load('{path}');"
                                            f"print(json.dumps(m.predict(np.load('{probe.name}')).tolist()))", 600))
    return float(np.mean(np.asarray(theirs) == model.predict(inputs)))


def timed_row(run, check, **about) -> dict:
    """One table row: ``run()``'s pairs as ``check`` counts them, its times, and the machine's load meanwhile."""
    with LoadSampler() as load:
        X1, X2, tests, times = run()
    row = {**about, "tests": tests, **{k: round(v, 1) for k, v in times.items()}, **load.summary(), **check(X1, X2)}
    print(row, file=sys.stderr, flush=True)
    return row


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--artifact", required=True, type=Path)
    p.add_argument("--artifact-python", required=True)
    p.add_argument("--budget", type=float, default=60)
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--methods", default=",".join(FAIRNB_METHODS), help="fairnb's methods ('' for none)")
    p.add_argument("--reference-methods", default=",".join(REFERENCE_METHODS), help="the artifact's ('' for none)")
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--max-found", type=int, default=None,
                   help="fairnb's max_found: a long run on a tree model otherwise keeps pairs until memory runs out")
    p.add_argument("--fairnb-clock", choices=("wall", "cpu"), default="wall",
                   help="fairnb's budget in wall-clock seconds (its max_time) or in CPU seconds (the artifact's clock)")
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--append", action="store_true", help="add to the rows already in OUT's .json")
    p.add_argument("--merge", nargs="*", type=Path, default=[],
                   help="add the rows of these .json files (runs made in parallel, each into its own OUT)")
    args = p.parse_args(argv)

    frame = pd.read_csv(args.artifact / "Datasets" / "Adult.csv")
    data = frame.values[:, :-1]
    lower, upper = data.min(axis=0), data.max(axis=0)
    rows = []
    for name in names(args.models):
        path = ensure_model(args.artifact, args.artifact_python, name)
        model = load_here(path, name)
        probe = np.random.default_rng(0).integers(lower, upper + 1, (2000, len(lower)))
        agree = {"predictions_agree": agreement(args.artifact, args.artifact_python, path, model, probe),
                 "data_agree": agreement(args.artifact, args.artifact_python, path, model, data)}

        def check(X1, X2, model=model):
            return check_pairs(model, X1, X2, lower, upper)

        for repeat in range(args.repeats):
            about = {"model": name, "budget": args.budget, "repeat": repeat, "check": check, **agree}
            for method in names(args.reference_methods):
                rows.append(timed_row(lambda: reference_pairs(args.artifact, args.artifact_python, name, method,
                                                              args.budget, repeat),
                                      harness="AFT artifact", method=method, **about))
            for method in names(args.methods):
                limit = {} if args.max_found is None else {"max_found": args.max_found}
                rows.append(timed_row(lambda: fairnb_pairs(model, frame, lower, upper, method, args.budget, repeat,
                                                           clock=args.fairnb_clock, **limit),
                                      harness="fairnb", method=method, clock=args.fairnb_clock, **about))
    out_json = args.out.with_suffix(".json") if args.out else None
    earlier = [out_json] if args.append and out_json and out_json.exists() else []
    table = pd.concat([pd.read_json(path) for path in earlier + args.merge] + [pd.DataFrame(rows)], ignore_index=True)
    if args.out:
        out_json.write_text(table.to_json(orient="records", indent=1))
        args.out.write_text(render(table))
    print(table.to_string())


def rates(group: pd.DataFrame) -> pd.DataFrame:
    """IDIs (unique unordered pairs) per wall second and per CPU second of the search, for each method that both
    harnesses ran; the artifact's CPU seconds are the ones it counts against its budget, fairnb's the process CPU
    time of ``Search.run``."""
    ref, own = group[group.harness == "AFT artifact"], group[group.harness == "fairnb"]
    both = ref.merge(own, on="method", suffixes=("_ref", "_own"))
    return pd.DataFrame({
        "method": both.method, "ref": both.unique_unordered_ref, "own": both.unique_unordered_own,
        "ref_wall": both.unique_unordered_ref / both.search_wall_s_ref,
        "own_wall": both.unique_unordered_own / both.search_wall_s_own,
        "ref_cpu": both.unique_unordered_ref / both.cpu_ref,
        "own_cpu": both.unique_unordered_own / both.cpu_own})


def number(value, form=",.0f") -> str:
    return "-" if pd.isna(value) else format(value, form)


def times(value, form=".2f") -> str:
    return "-" if pd.isna(value) else format(value, form) + "x"


def render(table: pd.DataFrame) -> str:
    table = table.assign(budget=table.get("budget", pd.Series(60.0, index=table.index)).fillna(60.0))
    for column in ("search_wall_s", "cpu_s", "load_mean", "load_max", "data_agree"):
        if column not in table:
            table[column] = np.nan
    table["search_wall_s"] = table.search_wall_s.fillna(table.wall_s)     # rows written before it was recorded
    mean = table.groupby(["budget", "model", "harness", "method"], sort=False).mean(numeric_only=True).reset_index()
    models = {m: i for i, m in enumerate(dict.fromkeys(mean.model))}
    mean = mean.assign(order=mean.model.map(models), fairnb=mean.harness == "fairnb")
    mean = mean.sort_values(["budget", "order", "fairnb"], kind="stable")
    mean["cpu"] = mean.cpu_s.where(mean.harness == "fairnb", mean.seconds)
    lines = [f"# fairnb beside the AFT artifact's harness, {' and '.join(f'{b:g}' for b in mean.budget.unique())} s "
             "per method", "",
             "Pairs re-checked with the model here and counted unordered (a pair and its reverse are one). Budget "
             "seconds are the artifact's CPU seconds (its budget) and fairnb's wall-clock seconds (its budget); "
             "wall and CPU are each search's own, load the machine's one-minute load average during the run "
             "(mean / max).", ""]
    for budget, runs in mean.groupby("budget", sort=False):
        lines += [f"## {budget:g} s", "",
                  "| model | harness | method | unique unordered pairs (re-checked) | reported | valid | tests | "
                  "budget s | wall s | CPU s | load |", "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in runs.itertuples():
            lines.append(f"| {r.model} | {r.harness} | {r.method} | {r.unique_unordered:,.0f} | {r.reported:,.0f} | "
                         f"{r.valid:,.0f} | {r.tests:,.0f} | {r.seconds:.1f} | {number(r.search_wall_s, '.1f')} | "
                         f"{number(r.cpu, '.1f')} | "
                         f"{number(r.load_mean, '.1f')} / {number(r.load_max, '.1f')} |")
        lines += ["", "| model | best of the artifact | best of fairnb | ratio | ratio per CPU second |",
                  "|---|---|---|---|---|"]
        for model, group in runs.groupby("model", sort=False):
            ref, own = group[group.harness == "AFT artifact"], group[group.harness == "fairnb"]
            if ref.empty or own.empty:
                continue
            ref, own = ref.sort_values("unique_unordered").iloc[-1], own.sort_values("unique_unordered").iloc[-1]
            ratio = own.unique_unordered / ref.unique_unordered if ref.unique_unordered else float("inf")
            per_cpu = times((own.unique_unordered / own.cpu) / (ref.unique_unordered / ref.cpu), ".1f")
            lines.append(f"| {model} | {ref.method}: {ref.unique_unordered:,.0f} | {own.method}: "
                         f"{own.unique_unordered:,.0f} | {ratio:.1f}x | {per_cpu} |")
        lines += ["", "The same method in both harnesses, IDIs per second of its search:", "",
                  "| model | method | IDIs artifact / fairnb | per wall s artifact / fairnb (ratio) | "
                  "per CPU s artifact / fairnb (ratio) |", "|---|---|---|---|---|"]
        for model, group in runs.groupby("model", sort=False):
            for r in rates(group).itertuples():
                lines.append(f"| {model} | {r.method} | {r.ref:,.0f} / {r.own:,.0f} | {r.ref_wall:,.0f} / "
                             f"{r.own_wall:,.0f} ({times(r.own_wall / r.ref_wall)}) | {r.ref_cpu:,.0f} / "
                             f"{number(r.own_cpu)} ({times(r.own_cpu / r.ref_cpu)}) |")
        lines.append("")
    agree = mean.groupby("model", sort=False)[["predictions_agree", "data_agree"]].first()
    lines += ["The same model in both environments, share of equal predictions on 2,000 random inputs (and on the "
              "Adult rows): " + ", ".join(f"{m} {a.predictions_agree:.1%}" + ("" if pd.isna(a.data_agree) else
                                                                           f" ({a.data_agree:.1%})")
                                          for m, a in agree.iterrows()) + "."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
