"""The limit, written down (issue #39, items 2 and 3): how many rows a second each scikit-learn model of the peer
harness can predict, beside how many candidates a second each black-box search checks on it, and what the compiled
tree path (``fairnb.models.sklearn_trees.CompiledTrees``) changes.

The models are the peer harness's (``benchmarks/peer_harness.py``: the AFT artifact's recipes, seeded), trained on
Adult in the ADF encoding (``census_adf`` from ``$FAIRNB_DATA``: 13 integer-coded columns, sex at column 8, the
layout of the artifact's Adult.csv), protected attribute sex: logistic regression (``penalty="l2"``), an MLP
(64-32-16-8-4-2, ReLU, adam, adaptive learning rate; ``--mlp-iter`` epochs; ``random_state=1``, as ``0`` gives a
model that says 0 to every row), a decision tree (gini, unpruned), gradient boosting (100 stages) and a random forest
(50 trees), ``random_state=0``.

Every number is taken on one thread (``threadpoolctl`` limits 1) and on CPU seconds of this process
(``time.process_time``):

* **rows per CPU second** of each way to evaluate a model, at batch sizes ``--batches``, on random integer rows
  inside the domain's bounds: the estimator's own ``predict_proba``, fairnb's adapter (``fairnb.models.wrap``: a
  NumpyMLP for the MLP, the compiled path on small batches of forests and boosting), the compiled path alone
  (tree models), the lookup tables alone (binary boosting: ``fairnb.models.sklearn_tables.BoostingTables``), and
  ONNX Runtime on the skl2onnx conversion (float32: not exact, shown for the speed only; ``--no-onnx`` leaves it
  out);
* **candidates per CPU second** of each method (``--methods``) on each model, each search stopped after
  ``--cpu`` CPU seconds (its last batch ends first), ``random_state=0``, the data's rows as seeds for the methods
  that take seeds: through fairnb's adapter as ``wrap`` gives it (``default``), through the estimator's ``predict_proba`` (``plain``:
  ``SklearnModel(model, compiled=False)``), and with the compiled path on every batch (``compiled``, tree models).

The machine is shared with other work: ``uptime``'s load is recorded, and the numbers are indicative.

Usage (a few minutes)::

    FAIRNB_DATA=../shared/data .venv/bin/python benchmarks/model_limits.py
    ... --cpu 10 --seconds 1 --mlp-iter 200          # longer
    ... --models GBDT --methods grft,aequitas --variants default,plain,compiled

Writes ``benchmarks/results/model_limits.md`` and ``model_limits.json`` (``--out`` another stem).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MODELS = ("LogReg", "MLP", "DecTreeRebuilt", "GBDT", "RanForestRebuilt")
KINDS = {"LogReg": "logistic regression", "MLP": "MLP (MLPClassifier)", "DecTreeRebuilt": "decision tree",
         "GBDT": "gradient boosting", "RanForestRebuilt": "random forest"}
TREE_MODELS = ("DecTreeRebuilt", "GBDT", "RanForestRebuilt")
METHODS = ("random", "aequitas", "expga", "grft", "maft", "kosei", "limi", "aft")
BATCHES = (64, 256, 1024, 4096, 16384, 65536)
MLP_SEED = 1        # the recipe with random_state=0 (and 4) learns the majority class only: every label 0


def train(name: str, X, y, mlp_iter: int):
    """The peer harness's model ``name`` (the artifact's recipe, ``random_state=0``) fitted on ``X, y``."""
    from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier
    from sklearn.tree import DecisionTreeClassifier

    make = {"LogReg": lambda: LogisticRegression(random_state=0),      # the recipe's penalty="l2" is the default
            "MLP": lambda: MLPClassifier(hidden_layer_sizes=(64, 32, 16, 8, 4, 2), activation="relu", solver="adam",
                                         learning_rate="adaptive", max_iter=mlp_iter, random_state=MLP_SEED),
            "DecTreeRebuilt": lambda: DecisionTreeClassifier(criterion="gini", splitter="best", random_state=0),
            "GBDT": lambda: GradientBoostingClassifier(n_estimators=100, random_state=0),
            "RanForestRebuilt": lambda: RandomForestClassifier(n_estimators=50, criterion="gini", random_state=0)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return make[name]().fit(X, y)


def rows_per_cpu_s(predict, X, seconds: float) -> float:
    """Rows of ``X`` that ``predict`` evaluates per CPU second, over at least ``seconds`` CPU seconds (and two
    calls), after one call to warm up."""
    predict(X)
    calls, start = 0, time.process_time()
    while calls < 2 or time.process_time() - start < seconds:
        predict(X)
        calls += 1
    return calls * len(X) / (time.process_time() - start)


def onnx_predict(estimator, n_features: int):
    """ONNX Runtime's ``probabilities`` for ``estimator`` converted by skl2onnx (float32, one thread)."""
    import onnxruntime as ort
    from skl2onnx import to_onnx

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        onx = to_onnx(estimator, np.zeros((1, n_features), np.float32), options={"zipmap": False})
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    session = ort.InferenceSession(onx.SerializeToString(), options, providers=["CPUExecutionProvider"])
    name, output = session.get_inputs()[0].name, session.get_outputs()[1].name
    return lambda X: session.run([output], {name: np.asarray(X, np.float32)})[0]


def paths(name: str, estimator, n_features: int, onnx: bool) -> dict:
    """The ways to evaluate ``estimator`` that the throughput table compares: label -> ``predict(X)``."""
    from fairnb.models import wrap
    from fairnb.models.sklearn_tables import BoostingTables, tables_reason
    from fairnb.models.sklearn_trees import CompiledTrees

    out = {"predict_proba": estimator.predict_proba, "fairnb adapter": wrap(estimator).predict_proba}
    if name in TREE_MODELS:
        out["compiled"] = CompiledTrees(estimator).predict_proba
        if tables_reason(estimator) is None:
            out["tables"] = BoostingTables(estimator).predict_proba
        if onnx:
            out["onnxruntime (float32)"] = onnx_predict(estimator, n_features)
    return out


def agreement(predict, estimator, X) -> dict:
    """How far ``predict`` is from ``estimator.predict_proba`` on ``X``: the largest probability difference and
    the number of rows whose decision (argmax) differs."""
    P, Q = np.asarray(predict(X)), estimator.predict_proba(X)
    return {"max_abs_diff": float(np.abs(P - Q).max()), "decisions_differ": int((P.argmax(1) != Q.argmax(1)).sum())}


def model_variant(variant: str, estimator):
    """The model a search gets: ``default`` what ``wrap`` gives, ``plain`` the estimator's ``predict_proba``,
    ``compiled`` the compiled path on every batch."""
    from fairnb.models import SklearnModel

    if variant == "default":
        return estimator
    return SklearnModel(estimator, compiled=variant == "compiled")


def search_rate(model, domain, seeds, method: str, cpu: float) -> dict:
    """One search of ``method`` stopped after ``cpu`` CPU seconds: candidates, pairs, CPU seconds."""
    from fairnb.search import get_method
    from fairnb.search.registry import seeds_for

    search = get_method(method)(max_time=cpu * 30 + 60, random_state=0, progress=False)
    start = time.process_time()

    def budget(event):
        if time.process_time() - start >= cpu:
            search.stop()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = search.run(model, domain, seeds=seeds_for(search, seeds), listeners=(budget,))
    spent = time.process_time() - start
    return {"tried": int(result.tried), "pairs": int(result.count()), "cpu_s": round(spent, 3),
            "candidates_per_cpu_s": result.tried / spent if spent else None}


def machine() -> dict:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() \
        else platform.processor()
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    return {"cpu": cpu, "cores": os.cpu_count(), "uptime": uptime, "load": [round(x, 2) for x in os.getloadavg()],
            "python": platform.python_version(), "numpy": np.__version__,
            "scikit-learn": __import__("sklearn").__version__, "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime())}


def measure(args) -> dict:
    from fairnb.datasets import load

    data = load("census_adf").with_protected(["sex"])
    X, y = data.X.to_numpy(float), np.asarray(data.y)
    domain, seeds = data.domain, data.domain.clip(data.seed_inputs())
    rng = np.random.default_rng(0)
    probe = rng.integers(domain.lower, domain.upper + 1, (20_000, len(domain.lower))).astype(float)
    out = {"machine_before": machine(), "args": {k: v for k, v in vars(args).items() if k != "out"},
           "throughput": [], "agreement": [], "searches": []}
    for name in args.models:
        start = time.process_time()
        estimator = train(name, X, y, args.mlp_iter)
        print(f"{name}: trained in {time.process_time() - start:.1f} CPU s", file=sys.stderr, flush=True)
        with threadpool_limits(1):
            ways = paths(name, estimator, X.shape[1], args.onnx)
            for label, predict in ways.items():
                if label != "predict_proba":
                    out["agreement"].append({"model": name, "path": label, **agreement(predict, estimator, probe)})
                for batch in args.batches:
                    rows = rng.integers(domain.lower, domain.upper + 1, (batch, len(domain.lower))).astype(float)
                    rate = rows_per_cpu_s(predict, rows, args.seconds)
                    out["throughput"].append({"model": name, "path": label, "batch": batch, "rows_per_cpu_s": rate})
                    print(f"  {label} batch {batch}: {rate:,.0f} rows per CPU s", file=sys.stderr, flush=True)
            variants = [v for v in args.variants if v == "default" or (v == "plain" and name != "LogReg")
                        or (v == "compiled" and name in TREE_MODELS)]
            for variant in variants:
                for method in args.methods:
                    row = search_rate(model_variant(variant, estimator), domain, seeds, method, args.cpu)
                    out["searches"].append({"model": name, "variant": variant, "method": method, **row})
                    print(f"  {variant} {method}: {row}", file=sys.stderr, flush=True)
    out["machine_after"] = machine()
    return out


def fmt(value) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "-"
    return f"{value:,.0f}"


def render(res: dict) -> str:
    import pandas as pd

    tp = pd.DataFrame(res["throughput"])
    runs = pd.DataFrame(res["searches"], columns=["model", "variant", "method", "tried", "pairs", "cpu_s",
                                                  "candidates_per_cpu_s"])
    a, before, after = res["args"], res["machine_before"], res["machine_after"]
    methods = list(dict.fromkeys(runs.method)) if len(runs) else []
    lines = ["# The limit, written down: model throughput beside search throughput (issue #39, items 2 and 3)", "",
             f"`python benchmarks/model_limits.py --models {','.join(a['models'])} --methods {','.join(a['methods'])} "
             f"--variants {','.join(a['variants'])} --cpu {a['cpu']:g} --seconds {a['seconds']:g} "
             f"--mlp-iter {a['mlp_iter']} --batches {','.join(map(str, a['batches']))}`"
             f"{'' if a['onnx'] else ' --no-onnx'}; {before['date_utc']} UTC.", "",
             f"Machine: {before['cpu']}, {before['cores']} cores, shared with other work: `uptime` before "
             f"`{before['uptime']}`, after `{after['uptime']}`. One thread (threadpoolctl limits 1), CPU seconds of "
             "this process; **indicative numbers** (other processes share the caches and the memory bus). "
             f"Python {before['python']}, numpy {before['numpy']}, scikit-learn {before['scikit-learn']}.", "",
             "Models: the peer harness's recipes (`benchmarks/peer_harness.py`), `random_state=0` (the MLP 1: with 0 it "
             "says 0 to every row), trained on Adult "
             "in the ADF encoding (`census_adf`, 32,561 rows, 13 columns), protected attribute sex. Rows: random "
             "integer codes inside the domain's bounds. Searches: `random_state=0`, the data's rows as seeds where the method "
             "takes them, each "
             f"stopped after {a['cpu']:g} CPU seconds (it ends its last batch first).", ""]
    best = tp.loc[tp.groupby(["model", "path"], sort=False).rows_per_cpu_s.idxmax()]
    default = runs[runs.variant == "default"]
    lines += ["## The limit", "",
              "Rows per CPU second of the estimator's own `predict_proba` at its best batch size (the batch in "
              "brackets), of fairnb's adapter at its best, and each method's candidates checked per CPU second "
              "through fairnb's adapter (what `search.run(model, ...)` uses).", "",
              "| model kind | predict_proba rows per CPU s (batch) | fairnb adapter rows per CPU s (batch) | "
              + " | ".join(methods) + " |", "|---|---|---|" + "---|" * len(methods)]
    for name in dict.fromkeys(tp.model):
        own = best[(best.model == name) & (best.path == "predict_proba")].iloc[0]
        ada = best[(best.model == name) & (best.path == "fairnb adapter")].iloc[0]
        rates = [fmt(default[(default.model == name) & (default.method == m)].candidates_per_cpu_s.max())
                 for m in methods]
        lines.append(f"| {KINDS[name]} | {own.rows_per_cpu_s:,.0f} ({own.batch:,}) | {ada.rows_per_cpu_s:,.0f} "
                     f"({ada.batch:,}) | " + " | ".join(rates) + " |")
    lines += ["", "## Rows per CPU second by batch size", "",
              "`fairnb adapter` is what searches use: a NumpyMLP for the MLP; for the forest and boosting, the "
              "compiled path on batches up to `fairnb.models.sklearn.COMPILED_ROWS` rows and `predict_proba` above "
              "(binary boosting that `BoostingTables` takes: its tables on every batch); "
              "`predict_proba` otherwise. `compiled` is `CompiledTrees` on every batch; `tables` is `BoostingTables` "
              "on every batch; `onnxruntime (float32)` is "
              "skl2onnx's conversion, for its speed only (not exact: see the agreement below).", "",
              "| model kind | path | " + " | ".join(f"{b:,}" for b in a["batches"]) + " |",
              "|---|---|" + "---|" * len(a["batches"])]
    for (name, path), group in tp.groupby(["model", "path"], sort=False):
        cells = [fmt(group[group.batch == b].rows_per_cpu_s.max()) for b in a["batches"]]
        lines.append(f"| {KINDS[name]} | {path} | " + " | ".join(cells) + " |")
    lines += ["", "Agreement with `predict_proba` on 20,000 random rows (largest probability difference; rows whose "
              "decision differs): " + "; ".join(f"{KINDS[r['model']]} {r['path']} {r['max_abs_diff']:.2g}, "
                                                 f"{r['decisions_differ']}" for r in res["agreement"]) + ".", ""]
    if len(runs[runs.variant != "default"]):
        lines += ["## Candidates per CPU second by how the model is evaluated", "",
                  "`default`: what `wrap` gives (above); `plain`: the estimator's `predict_proba` on every batch "
                  "(`SklearnModel(model, compiled=False)`; for the MLP: the black box instead of the NumpyMLP); "
                  "`compiled`: the compiled path on every batch (`compiled=True`). Pairs found in brackets.", "",
                  "| model kind | model as | " + " | ".join(methods) + " |", "|---|---|" + "---|" * len(methods)]
        for (name, variant), group in runs.groupby(["model", "variant"], sort=False):
            cells = []
            for m in methods:
                r = group[group.method == m]
                cells.append("-" if r.empty else f"{fmt(r.candidates_per_cpu_s.iloc[0])} ({r.pairs.iloc[0]:,})")
            lines.append(f"| {KINDS[name]} | {variant} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", type=lambda s: [m for m in s.split(",") if m], default=list(MODELS))
    ap.add_argument("--methods", type=lambda s: [m for m in s.split(",") if m], default=list(METHODS))
    ap.add_argument("--variants", type=lambda s: [m for m in s.split(",") if m], default=["default", "plain"],
                    help="default, plain, compiled (default: %(default)s)")
    ap.add_argument("--cpu", type=float, default=1.0, help="CPU seconds per search (default: %(default)s)")
    ap.add_argument("--seconds", type=float, default=0.25,
                    help="CPU seconds per throughput measurement (default: %(default)s)")
    ap.add_argument("--batches", type=lambda s: [int(b) for b in s.split(",")], default=list(BATCHES))
    ap.add_argument("--mlp-iter", type=int, default=30, help="the MLP's training epochs (default: %(default)s)")
    ap.add_argument("--no-onnx", dest="onnx", action="store_false")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "model_limits")
    args = ap.parse_args(argv)
    res = measure(args)
    args.out.with_suffix(".json").write_text(json.dumps(res, indent=1))
    args.out.with_suffix(".md").write_text(render(res))
    print(render(res))


if __name__ == "__main__":
    main()
