"""fairnb's ``expga`` and ``grft`` beside the authors' own code (issue #26's target): the ExpGA artifact
(github.com/waving7799/ExpGA, ``expga/ExpGA.py``) and the GRFT artifact (github.com/liliquan0118/GRFT,
``GRFT/GRFT.py``), each run unmodified in its algorithm on this machine's Python and TensorFlow 2 through
compatibility shims installed here, before the artifact is imported:

* ExpGA (written for Python 3.6, scikit-learn < 0.23, Keras 2, TensorFlow 1): ``sklearn.externals.joblib`` (and its
  ``numpy_pickle``, which the artifact's model pickles name) is ``joblib``; the scikit-learn modules its pickles name
  (``sklearn.neural_network.multilayer_perceptron``, ``sklearn.preprocessing.label``) are today's private ones;
  ``shap`` (imported, used only by the SHAP alternative, which ``main`` does not call) is an empty module when it is
  not installed. ``keras.models.load_model``, ``keras.backend`` and ``tensorflow.python.platform.flags`` still
  import. The module's settings, which the artifact means to be edited (its ``# replace`` comments), are set on the
  imported module: census, ``sensitive_param=9`` (sex), ``threshold_l=7``, its census ``MLP_unfair.pkl``.
  ``lime`` must be importable (``pip install lime``).
* GRFT (TensorFlow 2 already): its entry point is bypassed, not its search: ``individual_discrimination_generation``
  and ``generate_seeds`` are called on its census model (``models/vanilla_models/adult_model.h5``) and on EIDIG's
  census encoding (``$FAIRNB_DATA/census_eidig``, the artifact's ``preprocessing/datasets/adult.csv`` is not in
  its snapshot) split as its ``pre_census_income.py`` splits it. Keras 3 reads the ``.h5`` file with an input of
  shape (None, None, 12), which refuses the artifact's 2-D batches, so the same layers and weights are rebuilt on
  a (None, 12) input.

Each artifact runs in a child process (``--child``) so its shims and module state stay there; seeds it uses are
saved and handed to fairnb (GRFT's K-Means seeds go to ``grft`` with ``seed_selection="as_given"``; ExpGA draws its
candidates with ``random.seed(time.time())``, so fairnb's ``expga`` draws its own random candidates, as the
artifact does). Both sides are counted the same way (``peer_harness.check_pairs``): every input a method reports
is paired with its other protected value, re-checked with one model here, and counted unordered. ExpGA's artifact
reports its explained seeds as found without checking them; its own count (``local``) and all it reports
(``local + seeds``) are both re-checked. Times are the search's own (not Python's start, not loading): wall and
CPU seconds, and the machine's load meanwhile.

Usage (copies of the artifacts; ``git archive`` of the snapshots, large files absent is fine):

    nice python benchmarks/expga_grft_reference.py --expga-artifact /tmp/expga_art --grft-artifact /tmp/grft_art \\
        --repeats 2 --out benchmarks/results/expga_grft_reference.md
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
import types
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peer_harness import LoadSampler, check_pairs  # noqa: E402

#: module the artifact (or its pickles) imports -> the module that stands in for it here
EXPGA_ALIASES = {
    "sklearn.externals.joblib": "joblib",
    "sklearn.externals.joblib.numpy_pickle": "joblib.numpy_pickle",
    "sklearn.neural_network.multilayer_perceptron": "sklearn.neural_network._multilayer_perceptron",
    "sklearn.preprocessing.label": "sklearn.preprocessing._label",
}
EXPGA_SEX = 8         # 0-based; the artifact's sensitive_param=9 is 1-based
GRFT_GENDER = 7


def install_expga_shims():
    """Make the ExpGA artifact's imports (and its model pickles') resolve on today's libraries."""
    for name, target in EXPGA_ALIASES.items():
        sys.modules[name] = importlib.import_module(target)
    try:
        import shap  # noqa: F401
    except ImportError:
        sys.modules["shap"] = types.ModuleType("shap")


def expga_model(artifact: Path):
    """The artifact's census MLP (scikit-learn ``MLPClassifier``, 5 x 128 ReLU)."""
    import joblib

    install_expga_shims()
    return joblib.load(artifact / "models" / "census" / "MLP_unfair.pkl")


def expga_bounds(artifact: Path) -> np.ndarray:
    sys.path.insert(0, str(artifact))
    from utils.config import census

    sys.path.remove(str(artifact))
    return np.array(census.input_bounds, dtype=float)


def run_expga(artifact: Path, seed: int, n_candidates: int, n_local: int) -> dict:
    """Child: the artifact's ``xai_fair_testing`` on census/sex; its reported inputs and times."""
    install_expga_shims()
    os.chdir(artifact / "expga")
    sys.path[:0] = [str(artifact / "expga"), str(artifact)]
    random.seed(seed)
    np.random.seed(seed)
    expga = importlib.import_module("ExpGA")     # loads the bank model named at its top; replaced below
    from utils.config import census

    expga.dataset, expga.config, expga.input_bounds = "census", census, census.input_bounds
    expga.sensitive_param, expga.threshold_l = EXPGA_SEX + 1, 7
    expga.classifier_name = "../models/census/MLP_unfair.pkl"
    expga.model = expga_model(artifact)
    (artifact / "results" / "census" / str(EXPGA_SEX + 1)).mkdir(parents=True, exist_ok=True)
    wall, cpu = time.time(), time.process_time()
    expga.xai_fair_testing(max_global=n_candidates, max_local=n_local)
    return {"wall_s": time.time() - wall, "cpu_s": time.process_time() - cpu,
            "local": np.array(expga.local_disc_inputs_list, float).reshape(-1, 13),
            "reported": np.array(expga.global_disc_inputs_list + expga.local_disc_inputs_list, float).reshape(-1, 13),
            "tests": len(expga.tot_inputs)}


def grft_data(data_dir: Path):
    """EIDIG's census encoding as GRFT's ``pre_census_income.py`` gives it: ``(X_train, X_test, y_test,
    constraint)``."""
    from sklearn.model_selection import train_test_split

    data = pd.read_csv(data_dir / "census_eidig" / "census_eidig.csv").values.astype(np.int32)
    X, y = data[:, :-1], data[:, -1]
    X_train_all, X_test, y_train_all, y_test = train_test_split(X, y, test_size=0.2, random_state=42)
    X_train = train_test_split(X_train_all, y_train_all, test_size=0.2, random_state=42)[0]
    return X_train, X_test, y_test, np.vstack((X.min(axis=0), X.max(axis=0))).T


def grft_keras_model(path: Path):
    """The artifact's ``.h5`` model, its layers and weights on a (None, 12) input (see the module docstring)."""
    import keras

    loaded = keras.models.load_model(path, compile=False)
    model = keras.Sequential([keras.Input((12,))] + [keras.layers.Dense.from_config(layer.get_config())
                                                     for layer in loaded.layers])
    model.set_weights(loaded.get_weights())
    return model


def run_grft(artifact: Path, data_dir: Path, seed: int, n_seeds: int, n_local: int) -> dict:
    """Child: the artifact's seeds (K-Means, not timed, as fairnb's bench) and its whole search on census/gender."""
    os.chdir(artifact / "GRFT")
    sys.path.insert(0, str(artifact / "GRFT"))
    random.seed(seed)
    np.random.seed(seed)
    import tensorflow as tf

    tf.random.set_seed(seed)
    grft = importlib.import_module("GRFT")
    model = grft_keras_model(artifact / "GRFT" / "models" / "vanilla_models" / "adult_model.h5")
    X_train, _, _, constraint = grft_data(data_dir)
    seeds = grft.generate_seeds(X_train, num_seeds=n_seeds)
    wall, cpu = time.time(), time.process_time()
    ids, _, iterations, g_id, _, _ = grft.individual_discrimination_generation(
        X_train, seeds, [GRFT_GENDER], constraint, model, n_local, "census", max_iter=10, s_g=1.0, s_l=1.0,
        epsilon=1e-6)
    return {"wall_s": time.time() - wall, "cpu_s": time.process_time() - cpu, "seeds": seeds,
            "local": np.asarray(ids, float).reshape(-1, 12), "reported": np.asarray(ids, float).reshape(-1, 12),
            "global": np.asarray(g_id, float).reshape(-1, 12), "tests": int(iterations)}


def counterparts(X: np.ndarray, column: int, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """Each input with the other value of a two-valued protected ``column``.

    >>> counterparts(np.array([[1., 0.], [2., 1.]]), 1, np.array([0., 0.]), np.array([3., 1.]))
    array([[1., 1.],
           [2., 0.]])
    """
    if upper[column] - lower[column] != 1:
        raise ValueError(f"column {column} is not two-valued ({lower[column]:g}..{upper[column]:g})")
    other = X.copy()
    other[:, column] = lower[column] + upper[column] - X[:, column]
    return other


class Labels:
    """``predict`` (labels) of a model that gives ``predict_proba``, for ``check_pairs``."""

    def __init__(self, model):
        self.model = model

    def predict(self, X):
        return self.model.predict_proba(np.asarray(X, float)).argmax(1)


def expga_rows(artifact: Path) -> np.ndarray:
    """The artifact's census rows (its LIME explainer's training data)."""
    return np.loadtxt(artifact / "datasets" / "census", delimiter=",", skiprows=1)[:, :-1]


def reference(method: str, args, seed: int) -> tuple[dict, dict]:
    """Run the artifact in a child process (``--child``); its saved output, times and the machine's load
    meanwhile. With ``--reuse``, an earlier run's output in ``--work`` is read instead (its load, when it was
    recorded)."""
    out = args.work / f"{method}_{seed}.npz"
    if args.reuse and out.exists():
        saved = dict(np.load(out, allow_pickle=False))
        return saved, {key: float(saved.get(key, np.nan)) for key in ("load_mean", "load_max")}
    command = [sys.executable, "-W", "ignore", __file__, "--child", method, "--seed", str(seed),
               "--expga-artifact", str(args.expga_artifact), "--grft-artifact", str(args.grft_artifact),
               "--data", str(args.data), "--expga-candidates", str(args.expga_candidates),
               "--expga-local", str(args.expga_local), "--grft-seeds", str(args.grft_seeds),
               "--grft-local", str(args.grft_local), "--child-out", str(out)]
    with LoadSampler() as load:
        done = subprocess.run(command, capture_output=True, text=True,
                              env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    if done.returncode:
        raise RuntimeError(f"the {method} artifact failed:\n{done.stderr[-3000:]}")
    saved = {**np.load(out, allow_pickle=False), **load.summary()}
    np.savez(out, **saved)
    return saved, load.summary()


def fairnb_run(method: str, model, lower, upper, names, protected: str, seed: int, seeds=None, **params) -> dict:
    from fairnb.domains import Feature, TabularDomain
    from fairnb.search import get_method

    domain = TabularDomain([Feature(n, int(lo), int(hi)) for n, lo, hi in zip(names, lower, upper)],
                           protected=[protected])
    search = get_method(method)(random_state=seed, progress=False, **params)
    wall, cpu = time.time(), time.process_time()
    result = search.run(model, domain, seeds=seeds)
    return {"wall_s": time.time() - wall, "cpu_s": time.process_time() - cpu, "X1": result.inputs,
            "X2": result.counterparts, "tests": result.tried}


def timed(run) -> tuple[dict, dict]:
    with LoadSampler() as load:
        out = run()
    return out, load.summary()


def compare_expga(args, seed: int) -> list[dict]:
    model, bounds = expga_model(args.expga_artifact), expga_bounds(args.expga_artifact)
    lower, upper = bounds[:, 0], bounds[:, 1]
    names = [f"x{i}" for i in range(13)]
    names[EXPGA_SEX] = "sex"
    ref, load = reference("expga", args, seed)
    rows = []
    for counted in ("local", "reported"):
        X = ref[counted]
        rows.append({"method": "expga", "harness": f"artifact ({counted})", "seed": seed, "tests": int(ref["tests"]),
                     "wall_s": float(ref["wall_s"]), "cpu_s": float(ref["cpu_s"]), **load,
                     **check_pairs(model, X, counterparts(X, EXPGA_SEX, lower, upper), lower, upper, EXPGA_SEX)})
    rows_inside = np.clip(expga_rows(args.expga_artifact), lower, upper)    # 4,295 of its values lie past its bounds
    for candidates, seeds in (("random candidates", None), ("data rows", rows_inside)):
        own, load = timed(lambda: fairnb_run("expga", model, lower, upper, names, "sex", seed, seeds=seeds,
                                             n_candidates=args.expga_candidates, n_local=args.expga_local))
        rows.append({"method": "expga", "harness": f"fairnb ({candidates})", "seed": seed, "tests": own["tests"],
                     "wall_s": own["wall_s"], "cpu_s": own["cpu_s"], **load,
                     **check_pairs(model, own["X1"], own["X2"], lower, upper, EXPGA_SEX)})
    return rows


def compare_grft(args, seed: int) -> list[dict]:
    from fairnb.models.keras import load_keras_model

    network = load_keras_model(args.grft_artifact / "GRFT" / "models" / "vanilla_models" / "adult_model.h5")
    model = Labels(network)
    _, X_test, y_test, constraint = grft_data(args.data)
    lower, upper = constraint[:, 0].astype(float), constraint[:, 1].astype(float)
    names = list(pd.read_csv(args.data / "census_eidig" / "census_eidig.csv", nrows=0).columns[:-1])
    ref, load = reference("grft", args, seed)
    about = {"method": "grft", "seed": seed, "test_accuracy": float(np.mean(model.predict(X_test) == y_test))}
    X = ref["reported"]
    rows = [{**about, "harness": "artifact", "tests": int(ref["tests"]), "wall_s": float(ref["wall_s"]),
             "cpu_s": float(ref["cpu_s"]), **load,
             **check_pairs(model, X, counterparts(X, GRFT_GENDER, lower, upper), lower, upper, GRFT_GENDER)}]
    own, load = timed(lambda: fairnb_run("grft", network, lower, upper, names, "gender", seed, seeds=ref["seeds"],
                                         n_seeds=len(ref["seeds"]), n_local=args.grft_local,
                                         seed_selection="as_given"))
    rows.append({**about, "harness": "fairnb", "tests": own["tests"], "wall_s": own["wall_s"],
                 "cpu_s": own["cpu_s"], **load,
                 **check_pairs(model, own["X1"], own["X2"], lower, upper, GRFT_GENDER)})
    return rows


def ratio(a: float, b: float) -> str:
    """``a / b`` as a multiple.

    >>> ratio(30, 2), ratio(0, 0), ratio(3, 0)
    ('15.0x', '-', 'inf')
    """
    if not b:
        return "-" if not a else "inf"
    return f"{a / b:,.1f}x"


def render(table: pd.DataFrame, command: str) -> str:
    table = table.assign(idis_per_wall_s=table.unique_unordered / table.wall_s,
                         idis_per_cpu_s=table.unique_unordered / table.cpu_s)
    lines = ["| method | harness | seed | unique unordered IDIs (re-checked) | reported | tests | wall s | CPU s | "
             "IDIs / wall s | IDIs / CPU s | load mean / max |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in table.itertuples():
        lines.append(f"| {r.method} | {r.harness} | {r.seed} | {r.unique_unordered:,} | {r.reported:,} | "
                     f"{r.tests:,} | {r.wall_s:.1f} | {r.cpu_s:.1f} | {r.idis_per_wall_s:,.1f} | "
                     f"{r.idis_per_cpu_s:,.1f} | {r.load_mean:.1f} / {r.load_max:.1f} |".replace("nan", "-"))
    lines += ["", "fairnb over the artifact (its own count), per seed:", "",
              "| method | seed | fairnb | IDIs ratio | per wall s ratio | per CPU s ratio |",
              "|---|---|---|---|---|---|"]
    for (method, seed), group in table.groupby(["method", "seed"], sort=False):
        ref = group[group.harness.isin(["artifact", "artifact (local)"])].iloc[0]
        for own in group[group.harness.str.startswith("fairnb")].itertuples():
            lines.append(f"| {method} | {seed} | {own.harness} | {ratio(own.unique_unordered, ref.unique_unordered)} "
                         f"| {ratio(own.idis_per_wall_s, ref.idis_per_wall_s)} | "
                         f"{ratio(own.idis_per_cpu_s, ref.idis_per_cpu_s)} |")
    return "\n".join([f"Command: `{command}`", ""] + lines) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--expga-artifact", type=Path, required=True, help="a copy of waving7799/ExpGA")
    p.add_argument("--grft-artifact", type=Path, required=True, help="a copy of liliquan0118/GRFT")
    p.add_argument("--data", type=Path, default=Path(os.environ.get("FAIRNB_DATA", ".")),
                   help="folder holding census_eidig/ (default $FAIRNB_DATA)")
    p.add_argument("--methods", default="expga,grft")
    p.add_argument("--repeats", type=int, default=1, help="seeds 0 .. repeats-1")
    p.add_argument("--expga-candidates", type=int, default=1000, help="the artifact's max_global")
    p.add_argument("--expga-local", type=int, default=1000, help="the artifact's max_local (GA generations)")
    p.add_argument("--grft-seeds", type=int, default=1000, help="the artifact's num_seeds")
    p.add_argument("--grft-local", type=int, default=1000, help="the artifact's l_num")
    p.add_argument("--work", type=Path, default=Path("/tmp/expga_grft_reference"))
    p.add_argument("--reuse", action="store_true",
                   help="read the artifacts' outputs of an earlier run with the same settings from --work")
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--child", choices=("expga", "grft"), help=argparse.SUPPRESS)
    p.add_argument("--child-out", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        sys.stdout = open(os.devnull, "w")      # the artifacts print per input
        out = (run_expga(args.expga_artifact.resolve(), args.seed, args.expga_candidates, args.expga_local)
               if args.child == "expga" else
               run_grft(args.grft_artifact.resolve(), args.data.resolve(), args.seed, args.grft_seeds,
                        args.grft_local))
        np.savez(args.child_out, **out)
        return
    args.work.mkdir(parents=True, exist_ok=True)
    args.expga_artifact, args.grft_artifact = args.expga_artifact.resolve(), args.grft_artifact.resolve()
    args.data = args.data.resolve()
    compare = {"expga": compare_expga, "grft": compare_grft}
    rows = []
    for seed in range(args.repeats):
        for method in [m for m in args.methods.split(",") if m]:
            for row in compare[method](args, seed):
                print(row, file=sys.stderr, flush=True)
                rows.append(row)
    table = pd.DataFrame(rows)
    command = "python benchmarks/expga_grft_reference.py " + " ".join(argv if argv is not None else sys.argv[1:])
    if args.out:
        args.out.with_suffix(".json").write_text(json.dumps(rows, indent=1))
        args.out.write_text(render(table, command))
    print(render(table, command))


if __name__ == "__main__":
    main()
