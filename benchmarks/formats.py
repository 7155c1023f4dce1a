"""Two model formats on census (C-g: protected sex): an ONNX export and a white-box ``MLPClassifier``.

(a) The published Keras census model (``adult_model.h5``, loaded as a Keras 3 model) is exported to ONNX
    by Keras itself (``model.export(path, format="onnx")``, which runs tf2onnx) and read back by
    ``fairnb.models.OnnxModel`` (ONNX Runtime). Both are searched by the black-box methods on the same
    seeds with the same random state and a budget of candidates; the pairs found must be the same.
(b) A scikit-learn ``MLPClassifier`` trained on the census rows is searched by EIDIG (white box: ``wrap``
    rebuilds it as a NumpyMLP with exact gradients) and by MAFT (black box, the estimator's own
    ``predict_proba``; also on the NumpyMLP) for the same time from the same seeds: unique IDIs per
    second (EIDIG's counting convention, full instances).

Writes ``benchmarks/results/formats.{md,json}``. Needs ``fairnb[onnx]``, TensorFlow and tf2onnx:

    FAIRNB_DATA=../shared/data FAIRNB_MODELS=../shared/models \\
        .venv/bin/python benchmarks/formats.py [--seconds 20] [--quick]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fairnb.bench import load_benchmark, machine, save_report  # noqa: E402
from fairnb.models import OnnxModel, SklearnModel, load_model, wrap  # noqa: E402
from fairnb.models.keras import KerasModel  # noqa: E402
from fairnb.search import get_method  # noqa: E402
from fairnb.search.registry import seeds_for  # noqa: E402
from fairnb.search.engine.seeds import cluster_seeds  # noqa: E402


def onnx_round_trip(bench, data, X_train, seeds, max_tried: int) -> dict:
    """(a): predictions and pairs of the Keras model and of its ONNX export."""
    keras_model = load_model(Path(os.environ["FAIRNB_MODELS"]) / bench.model, backend="keras")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "adult_model.onnx"
        keras_model.model(X_train[:1].astype(np.float32))        # Keras exports only a model that was called
        keras_model.model.export(str(path), format="onnx", verbose=False)
        onnx_model = OnnxModel(path)
    tf_only = KerasModel(keras_model.model, numpy_below=0)     # the same Keras model, never its float64 twin
    P, Q = keras_model.predict_proba(X_train), onnx_model.predict_proba(X_train)
    rows = []
    for method in ("random", "aequitas", "sg", "maft"):
        params = dict(max_tried=max_tried, random_state=0, progress=False)
        if method != "random":
            params.update(n_seeds=len(seeds))
        if method == "maft":
            params.update(seed_selection="as_given")
        a, b, t = (get_method(method)(**params).run(model, data.domain, seeds=seeds_for(method, seeds))
                   for model in (keras_model, onnx_model, tf_only))
        keys = [{tuple(np.r_[x.ravel(), c.ravel()]) for x, c in zip(r.inputs, r.counterparts)} for r in (a, b, t)]
        rows.append({"method": method, "tried": [a.tried, b.tried], "pairs": [len(a.inputs), len(b.inputs)],
                     "unique_idis": [a.count("eidig"), b.count("eidig")],
                     "same_pairs": bool(np.array_equal(a.inputs, b.inputs)
                                        and np.array_equal(a.counterparts, b.counterparts)),
                     "only_keras": len(keys[0] - keys[1]), "only_onnx": len(keys[1] - keys[0]),
                     "keras_vs_tensorflow_only": [len(keys[0] - keys[2]), len(keys[2] - keys[0])]})
    return {"onnx_model": repr(onnx_model), "rows_compared": len(X_train),
            "max_abs_proba_difference": float(np.abs(P - Q).max()),
            "decisions_differ": int((P.argmax(1) != Q.argmax(1)).sum()), "searches": rows}


def white_box_mlp(data, seeds, seconds: float, hidden: tuple[int, ...]) -> dict:
    """(b): unique IDIs per second of EIDIG on wrap(MLPClassifier) and of MAFT on the same network."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    X = data.X.to_numpy(dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = MLPClassifier(hidden, max_iter=20, random_state=0).fit(X, data.y)
    rows = []
    for method, label, model in (("eidig", "EIDIG, wrap(mlp) = NumpyMLP (white box)", clf),
                                 ("maft", "MAFT, SklearnModel(mlp) (black box)", SklearnModel(clf)),
                                 ("maft", "MAFT, wrap(mlp) = NumpyMLP", clf)):
        result = get_method(method)(n_seeds=len(seeds), seed_selection="as_given", max_time=seconds,
                                    random_state=0, progress=False).run(model, data.domain, seeds=seeds)
        rows.append({"search": label, "model": repr(wrap(model)), "seconds": round(result.elapsed, 2),
                     "tried": result.tried, "unique_idis": result.count("eidig"),
                     "idis_per_second": round(result.count("eidig") / result.elapsed, 1)})
    return {"mlp": f"MLPClassifier({hidden}, max_iter=20, random_state=0) on all census rows",
            "accuracy": round(float((clf.predict(X) == data.y).mean()), 4), "searches": rows,
            "eidig_over_maft": round(rows[0]["idis_per_second"] / rows[1]["idis_per_second"], 1)}


def markdown(report: dict, command: str) -> str:
    a = report["onnx"]
    m = report["machine"]
    lines = ["# Model formats: an ONNX export and a white-box MLPClassifier (census, C-g)", "",
             f"Command: `{command}`", "",
             f"Machine: {m['platform']}, {m['cpus']} CPUs (shared: timings are contended; load average "
             f"{m.get('load_average')}), numpy {m['numpy']}; measured {m['date']}. Seeds: {report['n_seeds']} "
             "census training rows chosen by K-Means round robin, the same for every search.", "",
             "## (a) The Keras census model and its ONNX export", "",
             f"`adult_model.h5` (Keras 3) exported by `model.export(path, format='onnx')` (tf2onnx) and read as "
             f"`{a['onnx_model']}`. On the {a['rows_compared']:,} seed-pool rows the probabilities differ by at most "
             f"{a['max_abs_proba_difference']:.2e}; {a['decisions_differ']} decisions differ. Searches: "
             f"budget {report['max_tried']:,} candidates, random_state 0.", "",
             "The last column runs the same Keras model through fairnb's Keras adapter with `numpy_below=0` "
             "(TensorFlow on every batch, float32, instead of the float64 numpy twin on batches under 2,048 rows): "
             "how many pairs mere float rounding moves.", "",
             "| method | tried (Keras / ONNX) | pairs (Keras / ONNX) | unique IDIs (Keras / ONNX) | same pairs "
             "| only Keras | only ONNX | Keras vs TensorFlow only: only each |",
             "|---|---|---|---|---|---|---|---|"]
    for r in a["searches"]:
        lines.append(f"| {r['method']} | {r['tried'][0]:,} / {r['tried'][1]:,} | "
                     f"{r['pairs'][0]:,} / {r['pairs'][1]:,} | "
                     f"{r['unique_idis'][0]:,} / {r['unique_idis'][1]:,} | {'yes' if r['same_pairs'] else 'no'} | "
                     f"{r['only_keras']} | {r['only_onnx']} | {r['keras_vs_tensorflow_only'][0]} / "
                     f"{r['keras_vs_tensorflow_only'][1]} |")
    lines += ["", "Where Keras and ONNX find different pairs, Keras and its TensorFlow-only twin differ as much: MAFT "
              "estimates gradients from differences of outputs, so float rounding (1e-7) steers its local walks; the "
              "numbers of pairs stay close."]
    lines += ["", "## (b) An MLPClassifier: EIDIG (white box) against MAFT (black box)", "",
              f"Each search ran for {report['seconds']} s (or until its seeds were spent) from the same seeds.", ""]
    for b in report["mlp"]:
        lines += [f"{b['mlp']} (training accuracy {b['accuracy']}):", "",
                  "| search | model | seconds | tried | unique IDIs | IDIs / s |", "|---|---|---|---|---|---|"]
        for r in b["searches"]:
            lines.append(f"| {r['search']} | `{r['model']}` | {r['seconds']} | {r['tried']:,} | "
                         f"{r['unique_idis']:,} | {r['idis_per_second']:,} |")
        met = "met" if b["eidig_over_maft"] >= 10 else "not met"
        lines += ["", f"EIDIG on the white-box MLPClassifier: **{b['eidig_over_maft']}x** the unique IDIs per second "
                  f"of MAFT on the black-box estimator (the target of 10x: {met}).", ""]
    return "\n".join(lines)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="time budget of each search in (b)")
    parser.add_argument("--max-tried", type=int, default=20_000, help="candidate budget of each search in (a)")
    parser.add_argument("--seeds", type=int, default=1000)
    parser.add_argument("--hidden", nargs="+", default=["64,32"], help="hidden layers of each MLPClassifier in (b)")
    parser.add_argument("--quick", action="store_true", help="small budgets: a smoke run")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "formats"))
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds, args.max_tried, args.seeds = 3.0, 2000, 100
    bench, data, _, X_train = load_benchmark("C-g")
    seeds = cluster_seeds(X_train, args.seeds, order="random", random_state=0)
    report = {"machine": machine(), "n_seeds": len(seeds), "max_tried": args.max_tried, "seconds": args.seconds,
              "onnx": onnx_round_trip(bench, data, X_train, seeds, args.max_tried),
              "mlp": [white_box_mlp(data, seeds, args.seconds, tuple(map(int, h.split(",")))) for h in args.hidden]}
    command = "FAIRNB_DATA=../shared/data FAIRNB_MODELS=../shared/models .venv/bin/python benchmarks/formats.py " + \
        " ".join(argv if argv is not None else sys.argv[1:])
    save_report(args.out, report, markdown(report, command.strip()))
    return report


if __name__ == "__main__":
    main()
