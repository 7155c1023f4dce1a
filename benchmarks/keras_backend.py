"""The Keras (TensorFlow) backend against the numpy backend on the same published model.

``fairnb.models.load_model(path, backend="keras")`` and ``backend="numpy"`` load the same network
(``adult_model.h5``). The Keras adapter evaluates batches of at most ``numpy_below`` (2,048) rows of a
plain Dense stack with its numpy twin (float64, as the numpy backend); the column "TensorFlow only" is the same adapter with
``numpy_below=0``. This script times all three on the model calls searches make (class probabilities,
input gradients, hidden activations, at batch sizes from 1 to 65,536 rows) and on whole searches on
C-g (random, EIDIG, MAFT, NeuronFair, 100 seeds x 100 local steps), and counts TensorFlow's
"retracing" warnings (every ``tf.function`` trace after the first, logged by TensorFlow). Writes
``benchmarks/results/keras_backend.{md,json}``.

    FAIRNB_DATA=../shared/data FAIRNB_MODELS=../shared/models \\
        .venv/bin/python benchmarks/keras_backend.py [--quick]
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fairnb.bench import load_benchmark, machine  # noqa: E402
from fairnb.models import load_model  # noqa: E402
from fairnb.search import get_method  # noqa: E402
from fairnb.search.engine.seeds import cluster_seeds  # noqa: E402


class RetracingCounter(logging.Handler):
    """Counts TensorFlow's retracing warnings."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        if "retracing" in record.getMessage().lower():
            self.messages.append(record.getMessage()[:200])


def best_time(fn, repeats: int) -> float:
    """The fastest of ``repeats`` runs (seconds), after one warm-up call."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def model_calls(models: dict, X: np.ndarray, sizes, repeats: int) -> list[dict]:
    rows = []
    for n in sizes:
        batch = X[np.arange(n) % len(X)]
        classes = np.zeros(n, dtype=int)
        calls = {
            "predict_proba": lambda m: m.predict_proba(batch),
            "input_gradient": lambda m: m.input_gradient(batch, classes),
            "layer_outputs": lambda m: m.layer_outputs(batch),
            "activation_gradient": lambda m: m.activation_gradient(batch, 1, np.ones(20)),
        }
        for call, fn in calls.items():
            t = {name: best_time(lambda m=m: fn(m), repeats if n < 10_000 else max(2, repeats // 10))
                 for name, m in models.items()}
            rows.append({"workload": f"{call}, {n:,} rows", **{f"{k}_s": v for k, v in t.items()},
                         "ratio": t["keras"] / t["numpy"]})
    return rows


def searches(models: dict, data, seeds: np.ndarray, n_seeds: int, n_local: int) -> list[dict]:
    rows = []
    for method, params in (("random", {"n_samples": n_seeds * n_local}),
                           ("eidig", {"n_seeds": n_seeds, "n_local": n_local, "seed_selection": "as_given"}),
                           ("maft", {"n_seeds": n_seeds, "n_local": n_local, "seed_selection": "as_given"}),
                           ("neuronfair", {"n_seeds": n_seeds, "n_local": n_local, "seed_selection": "as_given"})):
        row = {"workload": f"search {method} ({n_seeds} x {n_local} on C-g)"}
        for name, m in models.items():
            runs = [get_method(method)(random_state=0, progress=False, **params).run(m, data.domain, seeds=seeds)
                    for _ in range(3)]
            row[f"{name}_s"], row[f"{name}_idis"] = min(r.elapsed for r in runs), runs[0].count()
        row["ratio"] = row["keras_s"] / row["numpy_s"]
        rows.append(row)
    return rows


def _span(values, fmt="{:.2f}") -> str:
    lo, hi = min(values), max(values)
    return fmt.format(lo) if fmt.format(lo) == fmt.format(hi) else f"{fmt.format(lo)}-{fmt.format(hi)}"


def reading(rows: list[dict]) -> str:
    """The "Reading" paragraph, written from the measured rows (so that it cannot go stale)."""
    calls = [r for r in rows if "numpy_idis" not in r]
    size = {r["workload"]: int(r["workload"].rsplit(", ", 1)[1].split()[0].replace(",", "")) for r in calls}
    tiny = [r for r in calls if size[r["workload"]] <= 64]
    small = [r for r in calls if size[r["workload"]] <= 2048]
    medium = [r for r in small if r not in tiny]
    large = [r for r in calls if size[r["workload"]] > 2048]
    single = [r for r in calls if size[r["workload"]] == 1]
    found = [r for r in rows if "numpy_idis" in r]
    differ = [r["workload"] for r in found if len({r["numpy_idis"], r["keras_idis"], r["tf_only_idis"]}) > 1]
    ms = "{:.2f}"
    return (
        f"Reading: a TensorFlow call costs {_span([r['tf_only_s'] * 1e3 for r in single], ms)} ms even for one row, "
        f"so on batches of {_span(sorted({size[r['workload']] for r in tiny}), '{:,}')} rows TensorFlow alone takes "
        f"{_span([r['tf_only_s'] / r['numpy_s'] for r in tiny], '{:.1f}')} times numpy's time (column 'TensorFlow "
        f"only') and on {_span(sorted({size[r['workload']] for r in medium}), '{:,}')} rows "
        f"{_span([r['tf_only_s'] / r['numpy_s'] for r in medium], '{:.1f}')} times; the adapter sends batches of at "
        f"most 2,048 rows to its numpy twin and takes "
        f"{_span([r['ratio'] for r in small])} times numpy's time. On {_span(sorted({size[r['workload']] for r in large}), '{:,}')} "
        f"rows TensorFlow takes {_span([r['keras_s'] / r['numpy_s'] for r in large])} times numpy's time (the keras "
        f"column). Whole searches: keras {_span([r['ratio'] for r in found])} times numpy, TensorFlow alone "
        f"{_span([r['tf_only_s'] / r['numpy_s'] for r in found], '{:.1f}')} times. The twin computes in float64 as the "
        f"numpy backend does; TensorFlow computes in float32, so a pair whose decision sits within float32 rounding "
        f"of the threshold could differ between the columns: "
        + (f"here the IDI counts (in parentheses) differ for {', '.join(differ)}. " if differ else
           "here every search found the same IDI count with all three (in parentheses). ")
        + "No tf.function is traced more than once: one graph per query kind with input signature (None, d).")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--models-dir", default=None)
    parser.add_argument("--quick", action="store_true", help="fewer repeats and smaller searches")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "keras_backend"))
    args = parser.parse_args(argv)

    import tensorflow as tf

    counter = RetracingCounter()
    tf.get_logger().addHandler(counter)
    _, data, _, X_train = load_benchmark("C-g", data_dir=args.data_dir, models_dir=args.models_dir)
    path = Path(args.models_dir or os.environ["FAIRNB_MODELS"]) / "adult_model.h5"
    keras_model = load_model(path, backend="keras")
    tf_only = type(keras_model)(keras_model.model, numpy_below=0)
    models = {"numpy": load_model(path, backend="numpy"), "keras": keras_model, "tf_only": tf_only}
    repeats, n = (5, 50) if args.quick else (20, 100)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):     # numpy with one BLAS thread, as in searches (fairnb's engine)
        rows = model_calls(models, X_train, (1, 64, 1024, 16_384, 65_536), repeats)
    rows += searches(models, data, cluster_seeds(X_train, n, order="random", random_state=0), n, n)
    report = {"machine": machine(), "tensorflow": tf.__version__, "threads": "engine: 1 BLAS thread (searches)",
              "retracing_warnings": len(counter.messages), "retracing_messages": counter.messages[:5], "rows": rows}
    out = Path(args.out)
    out.with_suffix(".json").write_text(json.dumps(report, indent=1))
    lines = ["# Keras backend against the numpy backend (adult_model.h5)", "",
             f"Command: `.venv/bin/python benchmarks/keras_backend.py{' --quick' if args.quick else ''}`", "",
             f"Machine: {report['machine']['platform']}, {report['machine']['cpus']} CPUs (shared: timings are "
             f"contended; load average {report['machine'].get('load_average')}), TensorFlow {tf.__version__}, "
             f"numpy {report['machine']['numpy']}; measured {report['machine']['date']}. Model calls: the best of "
             f"{repeats} runs after a warm-up, numpy with one BLAS thread as in searches; searches: the best of 3 runs, "
             "same seeds and random state.", "",
             f"TensorFlow retracing warnings during the whole run: **{len(counter.messages)}**.", "",
             "| workload | numpy (s) | keras (s) | keras / numpy | TensorFlow only (s) | TensorFlow only / numpy |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        extra = (f" (IDIs: {r['numpy_idis']:,} / {r['keras_idis']:,} / {r['tf_only_idis']:,})"
                 if "numpy_idis" in r else "")
        lines.append(f"| {r['workload']}{extra} | {r['numpy_s']:.5f} | {r['keras_s']:.5f} | {r['ratio']:.2f} | "
                     f"{r['tf_only_s']:.5f} | {r['tf_only_s'] / r['numpy_s']:.2f} |")
    lines += ["", reading(rows)]
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
