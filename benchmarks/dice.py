"""DICE on the published models: severity in bits, the causal layer and neurons, and NeuronFair's biased neurons.

Reproduce (about five minutes of CPU on a busy 2-core machine)::

    nice .venv/bin/python benchmarks/dice.py --data-dir ../shared/data --models-dir ../shared/models

Writes ``benchmarks/results/dice.{json,md}``. Per benchmark (the published census model with sex (C-g) and race
(C-r) protected, the bank model with age (B-a), and the census model with sex, race and age protected together, as
DICE's RQ1 runs it; with 40 bins an input reveals at most log2 40 = 5.32 bits): ADF with the reference code's
Metropolis acceptance and DICE, each from the same K-Means seeds (1,000 x 1,000 local steps on C-g, fewer on the
others: ``CASES``); their unique IDIs, the mean output gap of the local pairs and the
severity of the IDIs found (bits, min-entropy; probability bins of 0.025 and labels); DICE's causal layer and its
three strongest causal neurons; NeuronFair's most biased layer and biased neurons on 5,000 training inputs; and the
overlap of the two sets of neurons when both name the same layer.

Then the severity on the seeds as they are (``natural_severity_bits``) beside a control (``TWINS``): the synthetic
census's biased model and its unbiased twin (``benchmarks/twins.py``), and on census, fairnb's MLP trained on the
rows as they are against the same MLP trained with the protected column shuffled (tutorial 02's control), for sex,
race and age; DICE from the same seeds on each (``--twins-only`` runs only this part and keeps the rest of the
JSON).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import fairnb  # noqa: E402
from fairnb.bench import load_benchmark, machine, save_report  # noqa: E402
from fairnb.search.methods.adf import ADF  # noqa: E402
from fairnb.search.parts.biased_neurons import interpret  # noqa: E402
from fairnb.search.methods.dice import DICE  # noqa: E402
from fairnb.search.parts.severity import result_severity, severity  # noqa: E402

# (benchmark, protected attributes when not the benchmark's, seeds, local steps): sized for ~10 min on 2 busy cores
CASES = (("C-g", None, 1000, 1000), ("C-r", None, 500, 200), ("B-a", None, 500, 200),
         ("C-g", ("gender", "race", "age"), 200, 100))


TWIN_SEEDS, TWIN_LOCAL = 300, 50
COARSE = 0.1        # a coarser bin for the seeds' severity: an output must move further to count
CENSUS_ATTRIBUTES = ("gender", "race", "age")


def gap(result) -> float:
    """The mean |p - p'| of the local phase's pairs."""
    local = result.phases == "local"
    return round(float(np.abs(result.proba[local, 1] - result.counterpart_proba[local, 1]).mean()), 4) if local.any() else 0.0


def run_case(name, protected, seeds, local, log):
    bench, data, model, X = load_benchmark(name)
    if protected:
        data = data.with_protected(list(protected))
    dom = data.domain
    label = name if not protected else f"census ({', '.join(protected)})"
    row = {"benchmark": label, "model": bench.model, "protected": list(dom.protected_names),
           "variants": int(len(dom.protected_values)), "seeds": seeds, "local": local}
    for method, search in (("adf", ADF(n_seeds=seeds, n_local=local, acceptance="metropolis", random_state=0)),
                           ("dice", DICE(n_seeds=seeds, n_local=local, random_state=0))):
        t = time.perf_counter()
        r = search.run(model, dom, X)
        row[method] = {"unique_idis_adf": r.count("adf"), "global_idis": int(r.extras["global_idis"]),
                       "tried": int(r.tried), "elapsed_s": round(time.perf_counter() - t, 1), "local_gap": gap(r),
                       "bits": result_severity(model, r).summary(),
                       "natural_bits": r.extras.get("natural_severity_bits"),     # DICE's: the seeds as they are
                       "bits_labels": result_severity(model, r, epsilon=None).summary()}
        log(f"{label} {method}: {row[method]}")
    loc = search.localization_
    row["dice_layer"] = loc.layer
    row["dice_layer_rates"] = [None if np.isnan(v) else round(float(v), 4) for v in loc.rates]
    row["dice_neurons"] = loc.to_extras()
    row["dice_causal_count"] = len(loc.causal_neurons())
    row["dice_table"] = loc.neurons.head(5).round(4).to_dict("records")
    sample = X[np.random.default_rng(0).choice(len(X), min(5000, len(X)), replace=False)]
    nf = interpret(model, dom, sample)
    row["neuronfair_layer"] = nf.biased_layer
    row["neuronfair_neurons"] = [int(j) for j in nf.biased_neurons]
    same = loc.layer == nf.biased_layer
    causal = set(loc.causal_neurons())
    row["overlap"] = sorted(causal & set(row["neuronfair_neurons"])) if same else None
    row["overlap_top3"] = sorted(set(row["dice_neurons"]["causal_neurons"]) & set(row["neuronfair_neurons"])) if same else None
    # NeuronFair's biased neurons in DICE's causal layer: where they rank among DICE's effects
    nf_in_dice = interpret(model, dom, sample, layer=loc.layer)
    ranks = {int(j): i for i, j in enumerate(loc.neurons["neuron"])}
    row["neuronfair_in_dice_layer"] = {"neurons": [int(j) for j in nf_in_dice.biased_neurons],
                                       "dice_ranks": [ranks[int(j)] + 1 for j in nf_in_dice.biased_neurons],
                                       "layer_width": int(len(loc.neurons))}
    log(f"{label}: dice layer {loc.layer} {row['dice_neurons']}; neuronfair layer {nf.biased_layer} "
        f"{row['neuronfair_neurons']}; in dice's layer {row['neuronfair_in_dice_layer']}")
    return row


def shuffled(data, attribute: str, seed: int = 0):
    """``data`` with the column ``attribute`` shuffled over the rows: it tells a model trained on it nothing."""
    X = data.X.copy()
    X[attribute] = np.random.default_rng(seed).permutation(X[attribute].to_numpy())
    return dataclasses.replace(data, X=X)


def twin_pairs():
    """``(label, domain, seeds, {"model": ..., "control": ...})`` per twin case (module docstring)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import twins

    dom, seeds, models = twins.tabular(0)
    yield "synthetic (sex; twin: no label effect)", dom, seeds, {"model": models["biased"], "control": models["unbiased"]}
    census = fairnb.datasets.load("census")
    model = fairnb.train_demo_model(census, random_state=0)        # the protected attributes do not change training
    for attribute in CENSUS_ATTRIBUTES:
        data = census.with_protected([attribute])
        control = fairnb.train_demo_model(shuffled(data, attribute), random_state=0)
        yield f"census {attribute} (control: {attribute} shuffled)", data.domain, data.seed_inputs(), \
            {"model": model, "control": control}


def run_twins(log) -> list[dict]:
    rows = []
    for label, dom, seeds, models in twin_pairs():
        for which, model in models.items():
            t = time.perf_counter()
            r = DICE(n_seeds=TWIN_SEEDS, n_local=TWIN_LOCAL, debug=False, random_state=0, progress=False).run(
                model, dom, seeds)
            s = r.summary()
            row = {"case": label, "model": which, "variants": int(len(dom.protected_values)),
                   "natural_severity_bits": s["natural_severity_bits"],
                   "natural_severity_bits_coarse": round(float(severity(model, dom, r.extras["seeds"], COARSE)
                                                               .min_entropy.mean()), 4),
                   "natural_rate": s["natural_rate"],
                   "natural_low": s["natural_low"], "natural_high": s["natural_high"],
                   "unique_idis_adf": r.count("adf"), "severity_bits_mean": s.get("severity_bits_mean"),
                   "elapsed_s": round(time.perf_counter() - t, 1)}
            log(f"{label} {which}: {row}")
            rows.append(row)
    return rows


def twins_markdown(rows, info) -> str:
    out = ["", f"Severity on the seeds as they are, beside a control (DICE, {TWIN_SEEDS} K-Means seeds x {TWIN_LOCAL} "
           f"local steps, bins of 0.025, no debugging; {info['machine']}; {info['total_s']:.0f} s with the "
           "training). *Seeds bits*: `natural_severity_bits`, the mean bits the "
           "decision reveals about the protected attribute on the seeds before any change (a property of the model "
           "on the data); *IDIs bits*: the mean over the IDIs found (at least 1 on any model); the natural rate with "
           "its 95 % interval. The synthetic twin is trained without the label effect (`benchmarks/twins.py`); a "
           "census control is fairnb's MLP (32-16) trained on the same rows with the protected column shuffled.", "",
           f"*Seeds bits ({COARSE})*: the same with bins of {COARSE}.", "",
           f"| case | model | variants | seeds bits | seeds bits ({COARSE}) | natural rate (95 %) | unique IDIs | IDIs bits |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        found = "-" if r["severity_bits_mean"] is None else f"{r['severity_bits_mean']:.2f}"
        out.append(f"| {r['case']} | {r['model']} | {r['variants']} | {r['natural_severity_bits']:.3f} | "
                   f"{r['natural_severity_bits_coarse']:.3f} | "
                   f"{100 * r['natural_rate']:.1f} % ({100 * r['natural_low']:.1f}-{100 * r['natural_high']:.1f}) | "
                   f"{r['unique_idis_adf']:,} | {found} |")
    return "\n".join(out) + "\n"


def markdown(rows, info, twin_rows=()) -> str:
    out = ["# DICE on the published models", "",
           f"`nice .venv/bin/python benchmarks/dice.py` (scale {info['scale']}, random_state 0; {info['machine']}; "
           f"{info['total_s']:.0f} s in all). Each benchmark's seeds x local steps are in the table.", "",
           "Severity: mean / largest bits (min-entropy, log2 of the distinct outputs over the protected values) of the "
           "IDIs each method found, with DICE's probability bins of 0.025 and with labels. Local gap: mean |p - p'| "
           "of the local phase's pairs. DICE's time includes its debugging after the search (the severity of every IDI "
           "and the interventions on up to 1,000 of them with 5,000 seed rows). The paper's own numbers were not "
           "readable here (docs/methods/dice.md), and its models are not these, so nothing below compares with them.",
           "",
           "Seeds bits: DICE's `natural_severity_bits`, the mean bits (bins) on the seeds as they are; the table after "
           "the next one puts it beside a control.", "",
           "| benchmark | variants | seeds x local | method | unique IDIs | global IDIs | time (s) | local gap | "
           "bits (bins) mean / max | bits (labels) mean / max | seeds bits |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        for m in ("adf", "dice"):
            s = r[m]
            natural = "-" if s.get("natural_bits") is None else f"{s['natural_bits']:.2f}"
            out.append(f"| {r['benchmark']} | {r['variants']} | {r['seeds']} x {r['local']} | {m} | "
                       f"{s['unique_idis_adf']:,} | {s['global_idis']:,} | {s['elapsed_s']} | {s['local_gap']} | {s['bits']['severity_bits_mean']:.2f} / "
                       f"{s['bits']['severity_bits_max']:.2f} | {s['bits_labels']['severity_bits_mean']:.2f} / "
                       f"{s['bits_labels']['severity_bits_max']:.2f} | {natural} |")
    out += ["", "Causal debugging (DICE, on its IDIs; layers and neurons 0-based) beside NeuronFair's interpretation "
            "(5,000 training inputs):", "",
            "| benchmark | DICE layer (rates) | DICE top causal neurons (effect) | causal neurons | NeuronFair layer: "
            "biased neurons | overlap | NeuronFair's biased neurons in DICE's layer: their rank by DICE's effect |",
            "|---|---|---|---|---|---|---|"]
    for r in rows:
        d = r["dice_neurons"]
        top = ", ".join(f"{j} ({e:.3f})" for j, e in zip(d["causal_neurons"], d["causal_effects"])) or "none"
        rates = ", ".join("-" if v is None else f"{v:.2f}" for v in r["dice_layer_rates"])
        inside = r["neuronfair_in_dice_layer"]
        ranks = ", ".join(f"{j}: {k}/{inside['layer_width']}" for j, k in zip(inside["neurons"], inside["dice_ranks"]))
        overlap = "different layers" if r["overlap"] is None else (", ".join(map(str, r["overlap"])) or "none")
        out.append(f"| {r['benchmark']} | {r['dice_layer']} ({rates}) | {top} | {r['dice_causal_count']} | "
                   f"{r['neuronfair_layer']}: {', '.join(map(str, r['neuronfair_neurons'])) or 'none'} | {overlap} | "
                   f"{ranks or 'none'} |")
    return "\n".join(out) + "\n" + (twins_markdown(twin_rows, info["twins"]) if twin_rows else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir"), parser.add_argument("--models-dir")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every case's seeds and local steps")
    parser.add_argument("--twins-only", action="store_true", help="run only the twins; keep the rest of dice.json")
    args = parser.parse_args()
    import os
    for var, value in (("FAIRNB_DATA", args.data_dir), ("FAIRNB_MODELS", args.models_dir)):
        if value:
            os.environ[var] = value
    results = ROOT / "benchmarks" / "results"
    start = time.perf_counter()
    if args.twins_only:
        saved = json.loads((results / "dice.json").read_text())
        info, rows = saved["info"], saved["rows"]
    else:
        scale = args.scale
        rows = [run_case(name, protected, max(1, int(seeds * scale)), max(1, int(local * scale)), print)
                for name, protected, seeds, local in CASES]
        info = {"scale": scale, "machine": machine(), "total_s": time.perf_counter() - start}
    t = time.perf_counter()
    twin_rows = run_twins(print)
    info["twins"] = {"machine": machine(), "total_s": round(time.perf_counter() - t, 1)}
    save_report(results / "dice", {"info": info, "rows": rows, "twins": twin_rows}, markdown(rows, info, twin_rows),
                default=str)


if __name__ == "__main__":
    main()
