"""GRFT's reference code (github.com/liliquan0118/GRFT, ICSE 2025) beside fairnb on scikit-learn models (issue 39,
item 4): the same census encoding, bounds and protected attribute (EIDIG's census, gender), the same models.

The reference runs its own search unmodified (``GRFT.py``'s ``individual_discrimination_generation`` and
``generate_seeds``, at its published settings: 1,000 K-Means seeds, 1,000 local iterations, ``max_iter=10``) in a
child process; the only shim is the model: the reference calls a Keras model on a tensor and reads P(class 1), so a
scikit-learn model is handed over as a callable that returns ``predict_proba(X)[:, 1:]`` as a tensor. Its pairs are
counted first by its own code (its distinct discriminatory inputs, global and local), then here: each with its other
gender, re-checked with the model, unordered, unique (``peer_harness.check_pairs``), and the material ones among
them (P(class 1) moved by 0.1 or more). fairnb's ``grft`` and ``random`` then get the same CPU seconds as the
reference used (``--fairnb-cpu``: a fixed budget instead), the data's rows as seeds.

Models (trained here on GRFT's own training split, seeded): logistic regression, an MLP, gradient boosting and a
decision tree, the peer harness's recipes. Usage (DIR: ``git archive`` of the GRFT snapshot):

    python benchmarks/grft_reference_sklearn.py --grft-artifact DIR --models LogReg,MLP,GBDT,DecTree \\
        --out benchmarks/results/grft_reference_sklearn.json
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from expga_grft_reference import GRFT_GENDER, counterparts, grft_data  # noqa: E402
from peer_harness import LoadSampler, check_pairs  # noqa: E402

MODELS = {
    "LogReg": "sklearn.linear_model:LogisticRegression(max_iter=1000)",
    "MLP": "sklearn.neural_network:MLPClassifier(random_state=1)",
    "GBDT": "sklearn.ensemble:GradientBoostingClassifier(n_estimators=100, random_state=0)",
    "DecTree": "sklearn.tree:DecisionTreeClassifier(random_state=0)",
}
MATERIAL = 0.1


def train(name: str, data_dir: Path, work: Path) -> Path:
    """``name``'s recipe fitted on GRFT's training split, saved with joblib (once)."""
    import joblib
    import pandas as pd
    from sklearn.model_selection import train_test_split

    path = work / f"{name}.joblib"
    if not path.exists():
        data = pd.read_csv(data_dir / "census_eidig" / "census_eidig.csv").values.astype(np.int32)
        X_train, _, y_train, _ = train_test_split(data[:, :-1], data[:, -1], test_size=0.2, random_state=42)
        module, call = MODELS[name].split(":", 1)
        estimator = eval(call, vars(importlib.import_module(module)))    # noqa: S307 (the table above)
        joblib.dump(estimator.fit(X_train, y_train), path)
    return path


class AsKeras:
    """A scikit-learn model called as the reference calls its Keras model: a tensor of P(class 1), shape (n, 1)."""

    def __init__(self, model):
        self.model = model

    def __call__(self, X):
        import tensorflow as tf

        return tf.constant(self.model.predict_proba(np.asarray(X, float))[:, 1:])


def child(args) -> None:
    """The reference's search on one model; writes its seeds, distinct IDIs and times to ``--child-out``."""
    import joblib

    os.chdir(args.grft_artifact / "GRFT")
    sys.path.insert(0, str(args.grft_artifact / "GRFT"))
    random.seed(args.seed)
    np.random.seed(args.seed)
    import tensorflow as tf

    tf.random.set_seed(args.seed)
    grft = importlib.import_module("GRFT")
    model = AsKeras(joblib.load(args.child_model))
    X_train, _, _, constraint = grft_data(args.data)
    seeds = grft.generate_seeds(X_train, num_seeds=args.grft_seeds)
    wall, cpu = time.time(), time.process_time()
    ids, _, iterations, g_id, _, _ = grft.individual_discrimination_generation(
        X_train, seeds, [GRFT_GENDER], constraint, model, args.grft_local, "census", max_iter=10, s_g=1.0, s_l=1.0,
        epsilon=1e-6)
    np.savez(args.child_out, wall_s=time.time() - wall, cpu_s=time.process_time() - cpu, seeds=seeds,
             ids=np.asarray(ids, float).reshape(-1, 12), global_ids=np.asarray(g_id, float).reshape(-1, 12),
             iterations=int(iterations))


def reference(args, name: str, model_path: Path) -> tuple[dict, dict]:
    out = args.work / f"grft_{name}_{args.seed}.npz"
    if args.reuse and out.exists():        # an earlier run's output (its load was not kept)
        return dict(np.load(out)), {"load_mean": np.nan, "load_max": np.nan}
    command = [sys.executable, "-W", "ignore", __file__, "--child-model", str(model_path), "--child-out", str(out),
               "--grft-artifact", str(args.grft_artifact), "--data", str(args.data), "--seed", str(args.seed),
               "--grft-seeds", str(args.grft_seeds), "--grft-local", str(args.grft_local)]
    with LoadSampler() as load:
        done = subprocess.run(command, capture_output=True, text=True,
                              env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""})
    if done.returncode:
        raise RuntimeError(f"the GRFT reference failed on {name}:\n{done.stderr[-3000:]}")
    return dict(np.load(out)), load.summary()


def fairnb_search(method: str, model, lower, upper, names, seeds, cpu_budget: float, seed: int) -> dict:
    """fairnb's ``method`` stopped at its first batch past ``cpu_budget`` seconds of this process's CPU."""
    from fairnb.domains import Feature, TabularDomain
    from fairnb.search import get_method

    domain = TabularDomain([Feature(n, int(lo), int(hi)) for n, lo, hi in zip(names, lower, upper)],
                           protected=[names[GRFT_GENDER]])
    search = get_method(method)(max_time=cpu_budget * 60, random_state=seed, progress=False)
    wall, cpu = time.time(), time.process_time()
    timeline = [(0.0, 0)]          # (CPU s, inputs found by fairnb's own count), about one a CPU second

    def stop_at_budget(event):
        spent = time.process_time() - cpu
        if spent - timeline[-1][0] >= 1.0:
            timeline.append((spent, int(event.found)))
        if spent >= cpu_budget:
            search.stop()

    result = search.run(model, domain, seeds=seeds if method != "random" else None, listeners=(stop_at_budget,))
    out = {"wall_s": time.time() - wall, "cpu_s": time.process_time() - cpu, "tests": int(result.tried),
           "timeline": timeline + [(time.process_time() - cpu, len(result))]}
    small = np.int16 if max(np.abs(lower).max(), np.abs(upper).max()) < 2 ** 15 else np.int32
    out["X1"] = result.inputs.astype(small)           # tens of millions of pairs: 2 bytes a value, not 8
    out["X2"] = result.counterparts.astype(small)
    return out


def compare(args, name: str) -> list[dict]:
    import joblib
    import pandas as pd

    model = joblib.load(train(name, args.data, args.work))
    X_train, X_test, y_test, constraint = grft_data(args.data)
    lower, upper = constraint[:, 0].astype(float), constraint[:, 1].astype(float)
    names = list(pd.read_csv(args.data / "census_eidig" / "census_eidig.csv", nrows=0).columns[:-1])
    about = {"model": name, "seed": args.seed, "test_accuracy": float(np.mean(model.predict(X_test) == y_test))}
    ref, load = reference(args, name, args.work / f"{name}.joblib")
    X = ref["ids"]
    rows = [{**about, "harness": "GRFT reference", "method": "grft", "own_count": len(X),
             "tests": int(ref["iterations"]), "wall_s": float(ref["wall_s"]), "cpu_s": float(ref["cpu_s"]), **load,
             **check_pairs(model, X, counterparts(X, GRFT_GENDER, lower, upper), lower, upper, GRFT_GENDER,
                           material=MATERIAL)}]
    budget = args.fairnb_cpu or float(ref["cpu_s"])
    for method in args.methods.split(","):
        with LoadSampler() as load:
            own = fairnb_search(method, model, lower, upper, names, X_train.astype(float), budget, args.seed)
        rows.append({**about, "harness": "fairnb", "method": method, "own_count": len(own["X1"]),
                     "tests": own["tests"], "wall_s": own["wall_s"], "cpu_s": own["cpu_s"], **load.summary(),
                     "timeline": own["timeline"], "quarters": quarters(own["timeline"], budget),
                     **check_pairs(model, own["X1"], own["X2"], lower, upper, GRFT_GENDER, material=MATERIAL)})
    return rows


def quarters(timeline: list, budget: float) -> list[int]:
    """Inputs found in each quarter of the CPU budget (read off ``timeline``): a search that plateaus finds few in
    the last quarter."""
    cpu, found = np.array(timeline, float).T
    marks = np.interp(np.arange(5) * budget / 4, cpu, found)
    return [int(x) for x in np.diff(marks)]


def render(rows: list[dict]) -> str:
    lines = ["| model (test acc.) | harness | method | CPU s | wall s | own count | unique unordered pairs "
             "(re-checked) | material (>= 0.1) | per CPU s | load mean / max | found in each quarter of the budget |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in rows:
        lines.append(f"| {r['model']} ({r['test_accuracy']:.3f}) | {r['harness']} | {r['method']} | {r['cpu_s']:.1f} | "
                     f"{r['wall_s']:.1f} | {r['own_count']:,} | {r['unique_unordered']:,} | "
                     f"{r['material_unordered']:,} | {r['unique_unordered'] / r['cpu_s']:,.0f} | "
                     f"{r['load_mean']:.1f} / {r['load_max']:.1f} | "
                     + (" / ".join(f"{q:,}" for q in r["quarters"]) if "quarters" in r else "-") + " |")
    return "\n".join(lines) + "\n"


def peers_table(rows: list[dict]) -> str:
    """The issue's table, "fairnb vs the strongest peers": for each model and run (the reference and the fairnb
    runs given its CPU seconds), material IDIs first, then all IDIs; fairnb's best method against the reference."""
    lines = ["| model | CPU s | best peer (method: IDIs) | fairnb best (method: IDIs) | ratio | ratio per CPU s |",
             "|---|---|---|---|---|---|"]
    runs: dict = {}
    for r in rows:          # a reference row starts a run; the fairnb rows after it belong to it
        if r["harness"] == "GRFT reference":
            runs[(r["model"], len(runs))] = [r]
        else:
            runs[list(runs)[-1]].append(r)
    for (model, _), (ref, *own) in runs.items():
        for kind, column in (("material", "material_unordered"), ("all", "unique_unordered")):
            best = max(own, key=lambda r: r[column])
            lines.append(f"| {model} ({kind}) | {ref['cpu_s']:.1f} / {best['cpu_s']:.1f} | GRFT reference: "
                         f"{ref[column]:,} | {best['method']}: {best[column]:,} | {best[column] / ref[column]:.1f}x | "
                         f"{best[column] / best['cpu_s'] / (ref[column] / ref['cpu_s']):.1f}x |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--grft-artifact", type=Path, help="a copy of liliquan0118/GRFT")
    p.add_argument("--data", type=Path, default=Path(os.environ.get("FAIRNB_DATA", "../shared/data")))
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--methods", default="grft,random", help="fairnb's methods")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--grft-seeds", type=int, default=1000, help="the reference's num_seeds")
    p.add_argument("--grft-local", type=int, default=1000, help="the reference's l_num")
    p.add_argument("--fairnb-cpu", type=float, default=None, help="fairnb's CPU seconds (default: the reference's)")
    p.add_argument("--work", type=Path, default=Path("/tmp/grft_reference_sklearn"))
    p.add_argument("--reuse", action="store_true", help="read the reference's output of an earlier run in --work")
    p.add_argument("--out", type=Path, default=None, help="a .json file for the rows (a .md beside it)")
    p.add_argument("--table", type=Path, nargs="+", help="print the peers' table of these .json files and stop")
    p.add_argument("--child-model", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--child-out", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.table:
        return print(peers_table([row for path in args.table for row in json.loads(path.read_text())]))
    args.grft_artifact, args.data = args.grft_artifact.resolve(), args.data.resolve()
    if args.child_model:
        return child(args)
    args.work.mkdir(parents=True, exist_ok=True)
    rows = []
    for name in args.models.split(","):
        rows += compare(args, name)
        print(render(rows[-1 - len(args.methods.split(",")):]), flush=True)
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1) + "\n")
        args.out.with_suffix(".md").write_text(render(rows))
    print(render(rows))


if __name__ == "__main__":
    main()
