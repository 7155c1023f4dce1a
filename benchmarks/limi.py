"""LIMI against its paper's black-box baselines on the published models: IDIs, precision and naturalness (issue 26).

LIMI's abstract claims that it finds more individual discriminatory instances than the baselines (x9.42) and
that they are more natural (+19.65 %, in SDMetrics' quality score against the training data). This runs, on the
benchmarks C-g (census, gender) and B-a (bank, age) that the paper also uses, LIMI, ExpGA, AEQUITAS, SG and
uniform random sampling, each for the same wall-clock budget and with the same seed inputs (the published training
split, which LIMI's generator learns from and the others draw their seeds from), and reports per method:
unique IDIs, unordered pairs, candidates tried, precision (pairs per candidate), the natural rate of its seeds,
and the naturalness of its IDIs (``fairnb.results.metrics.naturalness`` against the training split, with the
artifact's categorical columns). Three rows anchor the naturalness scale: held-out data rows (the test split),
inputs decoded by LIMI's generator (a Gaussian copula fitted on the training split) and uniform random inputs.

Usage::

    nice .venv/bin/python benchmarks/limi.py                          # 30 s per method, ~6 min
    nice .venv/bin/python benchmarks/limi.py --max-time 10 --benchmarks C-g --methods limi random

Writes ``--out`` + ``.json`` (default ``benchmarks/results/limi.json``) and the table as ``.table.md``;
``benchmarks/results/limi.md`` quotes the tables with their reading. ``$FAIRNB_MODELS`` and ``$FAIRNB_DATA`` must
point at the published models and data. Times on a shared machine are contended; the files record the load average.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fairnb.bench import load_benchmark  # noqa: E402
from fairnb.results.metrics import naturalness  # noqa: E402
from fairnb.search import get_method  # noqa: E402
from fairnb.search.parts.latent import GaussianCopula  # noqa: E402

METHODS = ["limi", "expga", "aequitas", "sg", "random"]
#: the columns the LIMI artifact's naturalness script types categorical (eval_natural/eval.py), by name
CATEGORICAL = {
    "census": ["workclass", "educational_num", "marital_status", "occupation", "relationship", "race", "gender",
               "native_country"],
    "bank": ["job", "marital", "education", "default", "housing", "loan", "contact", "day", "month", "poutcome"],
}


def measure(name: str, methods, max_time: float) -> list[dict]:
    bench, data, model, X_train = load_benchmark(name)
    categorical = CATEGORICAL[bench.dataset]
    natural = lambda X: naturalness(X, X_train, domain=data.domain, categorical=categorical)
    rng = np.random.default_rng(0)
    copula = GaussianCopula().fit(X_train)
    anchors = {"held-out data rows": data.split()[1],
               "generator's inputs": data.domain.clip(copula.decode(rng.standard_normal((len(X_train), copula.latent_dim)))),
               "uniform random inputs": data.domain.sample(len(X_train), rng).astype(float)}
    rows = [{"benchmark": name, "method": f"({what})", **natural(X)} for what, X in anchors.items()]
    for method in methods:
        t0 = time.perf_counter()
        r = get_method(method)(max_time=max_time, random_state=0, progress=False).run(model, data.domain, X_train)
        s = r.summary()
        rows.append({"benchmark": name, "method": method, "status": r.status,
                     "unique_idis": s["unique_idis_eidig"], "unique_idi_pairs": s["unique_idi_pairs"],
                     "tried": r.tried, "precision": s["precision"], "natural_rate": s["natural_rate"],
                     "elapsed_s": round(time.perf_counter() - t0, 1), **natural(r)})
        print(f"{name} {method}: {rows[-1]['unique_idis']} IDIs, naturalness {rows[-1]['naturalness']:.4f}",
              flush=True)
    return rows


def markdown(rows, command: str, load: tuple) -> str:
    cols = ["benchmark", "method", "unique_idis", "unique_idi_pairs", "tried", "precision", "natural_rate",
            "naturalness", "column_shapes", "column_pair_trends", "elapsed_s"]
    fmt = lambda v: "" if v is None else f"{v:,}" if isinstance(v, int) else f"{v:.4g}" if isinstance(v, float) else str(v)
    lines = [f"Command: `{command}` ({os.cpu_count()} CPUs, load average {load[0]:.1f} at the start, "
             f"{platform.python_version()})", "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(fmt(r.get(c)) for c in cols) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--benchmarks", nargs="+", default=["C-g", "B-a"])
    parser.add_argument("--methods", nargs="+", default=METHODS)
    parser.add_argument("--max-time", type=float, default=30.0)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "limi"))
    args = parser.parse_args(argv)
    load = os.getloadavg()
    rows = [row for name in args.benchmarks for row in measure(name, args.methods, args.max_time)]
    command = "python benchmarks/limi.py " + " ".join(argv if argv is not None else sys.argv[1:])
    Path(args.out + ".json").write_text(json.dumps({"command": command, "load": load, "rows": rows}, indent=1))
    Path(args.out + ".table.md").write_text(markdown(rows, command.strip(), load))
    print(markdown(rows, command.strip(), load))


if __name__ == "__main__":
    main()
