"""TestSGD benchmark: scoring speed on census with the published model, and rule-guided mitigation.

Targets (issue 6):

* census (EIDIG encoding) with the published ``adult_model.h5``, sensitive race, gender and age:
  every frequent rule set scored in under 60 s;
* mitigation of a model with planted group discrimination: the top rule set's score drops by at
  least half, with test accuracy within 2 points.

Usage::

    .venv/bin/python benchmarks/testsgd.py --part census    # about 15 s
    .venv/bin/python benchmarks/testsgd.py --part keras     # mitigation of a Keras model, about 2 min
    .venv/bin/python benchmarks/testsgd.py --part sklearn   # mitigation of a scikit-learn MLP, about 1 min

Writes ``benchmarks/results/testsgd_census.json`` and ``testsgd_mitigation_<kind>.json`` (every number
printed, the machine, the seeds).
Timings on a shared machine are contended: the JSON records the CPU count and load average.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import fairnb  # noqa: E402
from fairnb.group import TestSGD  # noqa: E402
from fairnb.mitigation.rule_guided import RuleGuidedMitigation  # noqa: E402
from fairnb.group.planted import make_planted_group  # noqa: E402

SHARED = ROOT.parent / "shared"
# the paper's Table 5 / Table 4 (arXiv v1), census row: other encoding (ADF, decade ages) and model
PAPER_CENSUS = {"seconds": 869.35, "rule_sets": 880, "top_rule_set": "gender=male, 40<=age<80, race=White or "
                "Asian-Pac-Islander", "score": 0.202, "phi_in": 0.299, "phi_out": 0.097}


def machine() -> dict:
    return {"python": platform.python_version(), "cpus": os.cpu_count(), "loadavg_1min": os.getloadavg()[0],
            "platform": platform.platform()}


def census(data_dir: Path, models_dir: Path, seed: int = 0) -> dict:
    data = fairnb.datasets.load("census", data_dir)
    model = fairnb.models.load_model(models_dir / "adult_model.h5")
    _, X_test, _, y_test = data.split()
    out = {"dataset": "census (EIDIG encoding)", "model": f"adult_model.h5 as {model!r}",
           "test_accuracy": fairnb.accuracy(model, X_test, y_test), "paper": PAPER_CENSUS, "runs": []}
    for continuous in (["age"], "auto"):
        tester = TestSGD(random_state=seed, continuous=continuous)
        t0 = time.perf_counter()
        res = tester.run(model, data, sensitive=["race", "gender", "age"])
        wall = time.perf_counter() - t0
        top = res.top(3)[["rule_set", "support", "phi_in", "phi_out", "score", "eps", "n"]]
        out["runs"].append({"age_rules": "runs of adjacent age bins" if continuous != "auto" else
                            "any subset of age bins (auto: 4 values <= 10)", "params": res.params,
                            "seconds": round(wall, 3), **res.summary(), "top3": top.round(4).to_dict("records"),
                            "mean_samples_per_side": round(float(res.frame["n"].mean()), 1),
                            "target_under_60s": wall < 60})
        print(f"census, age {'intervals' if continuous != 'auto' else 'subsets'}: {len(res)} rule sets "
              f"({res.info['queries']:,} queries) in {wall:.1f} s; top: {res.frame.iloc[0].rule_set} "
              f"score {res.frame.iloc[0].score:.3f} +- {res.frame.iloc[0].eps:.3f}")
    return out


def _keras_model(data, seed: int):
    import keras

    keras.utils.set_random_seed(seed)
    X_train, _, y_train, _ = data.split()
    model = keras.Sequential([keras.Input((X_train.shape[1],))]
                             + [keras.layers.Dense(u, activation="relu") for u in (30, 20, 15, 10)]
                             + [keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="binary_crossentropy")
    model.fit(X_train, y_train, epochs=30, batch_size=64, verbose=0)
    return model


MODELS = {"keras": "keras 7-30-20-15-10-1 (30 epochs)", "sklearn": "sklearn MLP 7-32-16-1 as NumpyMLP"}
EPOCHS = {("keras", "finetune"): 20, ("keras", "scratch"): 30, ("sklearn", "finetune"): 20, ("sklearn", "scratch"): 100}


def mitigation(kind: str, seed: int = 0, n: int = 5000) -> dict:
    """Mitigate a ``kind`` ("keras" or "sklearn") model trained on data with a planted group."""
    data = make_planted_group(n=n, random_state=seed)
    out = {"dataset": data.description, "planted_group": data.info["planted_group"], "model": MODELS[kind],
           "runs": []}
    t0 = time.perf_counter()
    model = _keras_model(data, seed) if kind == "keras" else fairnb.train_demo_model(data, random_state=seed)
    out["training_seconds"] = round(time.perf_counter() - t0, 2)
    for sensitive in (["sex", "race"], ["sex", "race", "age"]):
        tester = TestSGD(random_state=seed, continuous=["age"])
        for mode in ("finetune", "scratch"):
            epochs = EPOCHS[kind, mode]
            mit = RuleGuidedMitigation(tester, mode=mode, epochs=epochs, max_accuracy_drop=0.02, random_state=seed)
            res = mit.run(model, data, sensitive=sensitive)
            s = res.summary()
            s.update({"sensitive": sensitive, "mode": mode, "epochs": epochs,
                      "params": {k: v for k, v in mit.get_params().items() if k != "tester"},
                      "score_ratio": round(s["score_after"] / s["score_before"], 4),
                      "accuracy_change_points": round(100 * (s["accuracy_after"] - s["accuracy_before"]), 2),
                      "steps": res.steps.round(4).to_dict("records")})
            s["target_met"] = s["score_ratio"] <= 0.5 and abs(s["accuracy_change_points"]) <= 2
            out["runs"].append(s)
            print(f"mitigation, {kind}, sensitive {','.join(sensitive)}, {mode} {epochs} epochs: {s['rule_set']}: "
                  f"score {s['score_before']:.3f} -> {s['score_after']:.3f} (x{s['score_ratio']:.2f}), accuracy "
                  f"{s['accuracy_before']:.3f} -> {s['accuracy_after']:.3f}, {s['added']} added, {s['seconds']:.0f} s")
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=("census", "keras", "sklearn", "all"), default="all",
                   help="census speed, or mitigation of a keras / sklearn model with a planted group")
    p.add_argument("--data-dir", default=os.environ.get("FAIRNB_DATA", SHARED / "data"))
    p.add_argument("--models-dir", default=os.environ.get("FAIRNB_MODELS", SHARED / "models"))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=ROOT / "benchmarks" / "results")
    args = p.parse_args(argv)
    parts = ("census", "keras", "sklearn") if args.part == "all" else (args.part,)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    for part in parts:
        result = (census(Path(args.data_dir), Path(args.models_dir), args.seed) if part == "census"
                  else mitigation(part, args.seed))
        result.update({"machine": machine(), "seed": args.seed, "command": " ".join(sys.argv)})
        path = Path(args.out) / f"testsgd_{part if part == 'census' else 'mitigation_' + part}.json"
        path.write_text(json.dumps(result, indent=1, default=str))
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
