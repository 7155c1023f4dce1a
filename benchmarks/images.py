"""Image benchmark: NeuronFair's image experiments (Tables 10 and 11) at laptop scale, judged on means over
several detector seeds.

Two face / non-face data sets with a synthetic protected attribute (skin tone), 32 x 32 RGB:

* **tinted LFW**: scikit-image's 100 LFW faces + 100 non-faces, augmented x8 (mirror, 1-px shifts), a skin-tone
  tint in the face region (``fairnb.images.load_tinted_lfw``); 800 faces;
* **synthetic faces**: ``fairnb.images.make_faces`` (2,000 rendered images, about 1,000 faces).

Per data set and **detector seed** (``--seeds``, default 0 1 2: the data draw, the split and the training all
follow it), two detectors are trained (``train_face_detector``, 10 epochs): a **biased** one, whose training
split labels 65 % of the dark-toned faces "non-face" (``mislabelled_in_training=0.65``: label bias; the
earlier knob, keeping 15 % of the dark faces, left the detection rate of dark faces at 0.81-1.0, i.e. no
measurable bias), and an **unbiased** one (true labels). Each gets its f_sa = frozen trunk + [512, 256, 128,
64, 16] head fitted on the training faces' tones (``FGSMFlip``). Per detector the setups table reports the
planted bias as it shows on the held-out faces: the detection rate per tone, the share of faces whose
decision the exact tone flip changes, and the attribute-effect AUC of Section 5.9 (max hidden layer, tanh of
the mean absolute activation change) on the pairs <x, FGSM flip> (the paper's) and <x, exact re-render>.

**Table 10** (global IDIs): ``neuronfair_image``, ``adf_image`` and ``eidig_image`` (global phase, step 0.15,
40 iterations, unsigned directions) search from the same seeds: ``--n-seeds`` (default 300) training faces
drawn at random per detector (the paper uses every face; fewer keep the run affordable on 2 shared cores).
Reported per detector: unique IDIs, the stricter count where f_sa still disagrees at the end, GSR (IDIs per
distinct generated image), the FGSM flip's success rate; and over the seeds the means and the ratios of the
means (the digest's convention, 5.10). ``--exact`` adds the same searches with ``ExactFlip`` (the true
counterfactual) on the synthetic faces.

**Table 11** (retraining, biased detectors): each detector is fine-tuned (5 epochs, its training split plus
the added images, ``fairnb.mitigation.retrain_model``) with every IDI of a method and its counterpart, labelled
"face" (every seed is a face; the training labels carry the planted label bias, so the seed's *training*
label would teach the bias again), and three controls with the same epochs: ``control`` adds nothing,
``control_faces`` adds as many ordinary training faces (labelled face) as NeuronFair added images, and
``control_flips`` adds half as many training faces and their FGSM flips (the pairs without the search's
``delta_bias``). Measured on held-out faces: the AUC (FGSM pairs, as the paper; and exact pairs), the detection
rate and the dark-tone detection rate.

**FGSM versus exact flips** (synthetic faces, biased detector of the first seed): an independent tone judge
(logistic regression on the pixels of training faces) labels each FGSM-flipped face and its exact re-render.

**Timing** (``--time-only``: only this): the NeuronFair global phase over 1,000 seed images (synthetic faces,
repeated to 1,000), wall clock, with the machine's load average.

Usage::

    .venv/bin/python benchmarks/images.py --exact          # about 40 minutes on the loaded 2-core machine
    .venv/bin/python benchmarks/images.py --trace-only     # NeuronFair's step trace, added to images.json
    .venv/bin/python benchmarks/images.py --time-only      # the timing target only (run it on a quiet machine)
    .venv/bin/python benchmarks/images.py --markdown-only  # rewrite images.md from images.json

Writes ``benchmarks/results/images.json`` and ``images.md``. TensorFlow runs with op determinism.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import fairnb  # noqa: E402,F401
from fairnb.bench import machine  # noqa: E402
from fairnb.domains import ImageDomain  # noqa: E402
from fairnb.images import ExactFlip, FGSMFlip, load_tinted_lfw, make_faces  # noqa: E402
from fairnb.images.detector import train_face_detector  # noqa: E402
from fairnb.images.fairness import attribute_effect, detection_rate  # noqa: E402
from fairnb.mitigation.retrain import retrain_model  # noqa: E402
from fairnb.search import get_method  # noqa: E402

METHODS = ("neuronfair_image", "adf_image", "eidig_image")
# NeuronFair Table 10 (digest 5.8): global-phase image IDIs; Table 11 (5.9): AUC before / after retraining.
BIASED = {"mislabelled_in_training": 0.65}       # the planted label bias (see the module docstring)
PAPER = {"idis_ratio_vs_adf": 4.34, "idis_ratio_vs_eidig": 2.07, "auc_drop_neuronfair": 0.5377,
         "auc_drop_adf": 0.0806, "auc_drop_eidig": 0.1090, "dr_drop_points_neuronfair": 0.87}


def setup(name: str, biased: bool, size: int, seed: int):
    bias = BIASED if biased else {}
    data = (load_tinted_lfw(size=size, augment=8, random_state=seed, **bias) if name == "lfw"
            else make_faces(n=2000, size=size, random_state=seed, **bias))
    t0 = time.perf_counter()
    detector = train_face_detector(data, epochs=10, random_state=seed)
    train, _ = data.split_indices()
    faces_train = train[data.y[train] == 1]
    flipper = FGSMFlip(epochs=10, random_state=seed).fit(detector, data.X[faces_train], data.attribute[faces_train])
    info = {"data": name, "seed": seed, "biased": biased, "images": len(data), "faces": int((data.y == 1).sum()),
            "train_seconds": round(time.perf_counter() - t0, 1), "f_sa_accuracy": round(flipper.accuracy_, 4),
            **measures(detector, data, flipper)}
    return data, detector, flipper, info


def measures(model, data, flipper) -> dict:
    """The planted bias as the held-out faces show it (see the module docstring)."""
    _, test = data.split_indices()
    faces = test[data.y[test] == 1]
    X, tone = data.X[faces], data.attribute[faces]
    fgsm = flipper.flip(X)
    exact = ExactFlip(data).flip(X, index=faces)
    by_fgsm = attribute_effect(model, fgsm.X[fgsm.success], fgsm.X_flipped[fgsm.success])
    by_exact = attribute_effect(model, X, exact.X_flipped)
    X_test, y_test = data.X[test], data.y[test]
    return {"accuracy": round(float((model.predict_proba(X_test).argmax(1) == y_test).mean()), 4),
            "dr_light": round(detection_rate(model, X[tone == 0]), 4), "dr_dark": round(detection_rate(model, X[tone == 1]), 4),
            "auc_fgsm": round(by_fgsm.auc, 4), "auc_exact": round(by_exact.auc, 4),
            "changed_exact": round(by_exact.changed, 4), "test_flip_success": round(fgsm.success_rate, 4)}


def search(method, detector, domain, seeds, **params) -> dict:
    t0 = time.perf_counter()
    r = get_method(method)(random_state=0, **{"constraints": "paper", **params}).run(detector, domain, seeds=seeds)
    seconds = time.perf_counter() - t0
    return {"method": method, "idis": r.count(), "strict_idis": r.extras["strict_idis"], "gsr": r.extras["gsr"],
            "generated": r.extras["generated"], "seconds": round(seconds, 1),
            "flip_success_rate": r.extras["flip_success_rate"], "biased_layer": r.extras.get("biased_layer"),
            "result": r}


def search_seeds(data, n: int, seed: int) -> np.ndarray:
    """Rows of ``n`` training faces drawn at random (the same for every method)."""
    train, _ = data.split_indices()
    faces = train[data.y[train] == 1]
    return np.sort(np.random.default_rng(seed).choice(faces, min(n, len(faces)), replace=False))


def compare(data, detector, flipper, label: dict, rows) -> tuple[list[dict], dict]:
    """The three methods from the same seed faces ``rows``: the rows of the search table and the results."""
    domain = ImageDomain.from_data(data, flipper)
    table, results = [], {}
    for method in METHODS:
        row = search(method, detector, domain, data.X[rows])
        results[method] = row.pop("result")
        table.append({**label, **row})
        print(table[-1], flush=True)
    return table, results


def retraining(name, data, detector, flipper, results, epochs: int, seed: int) -> list[dict]:
    """Fine-tune with each method's IDIs and with the controls (see the module docstring); measure each."""
    X_train, _, y_train, _ = data.split()
    train, _ = data.split_indices()
    faces = train[data.y[train] == 1]
    rng = np.random.default_rng(seed)
    added = {m: np.concatenate([r.inputs, r.counterparts]) for m, r in results.items()}
    k = len(added["neuronfair_image"])
    pick = rng.choice(faces, k, replace=k > len(faces))
    half = data.X[pick[: k // 2]]
    added["control"] = X_train[:0]
    added["control_faces"] = data.X[pick]
    added["control_flips"] = np.concatenate([half, flipper.flip(half).X_flipped]) if len(half) else half
    rows = [{"data": name, "seed": seed, "method": "before", "added": 0, **measures(detector, data, flipper)}]
    for method, X_add in added.items():
        new = retrain_model(detector, np.concatenate([X_train, X_add]), np.concatenate([y_train, np.ones(len(X_add))]),
                            epochs=epochs, random_state=seed)
        rows.append({"data": name, "seed": seed, "method": method, "added": len(X_add),
                     **measures(_wrapped(new), data, flipper)})
        print(rows[-1], flush=True)
    return rows


def _wrapped(keras_model):
    from fairnb.models.keras import KerasModel

    return KerasModel(keras_model)


def flip_agreement(data, detector, flipper) -> dict:
    from sklearn.linear_model import LogisticRegression

    train, test = data.split_indices()
    tr = train[data.y[train] == 1]
    te = test[data.y[test] == 1]
    judge = LogisticRegression(max_iter=2000).fit(data.X[tr].reshape(len(tr), -1), data.attribute[tr])
    fgsm = flipper.flip(data.X[te])
    exact = ExactFlip(data).flip(data.X[te], index=te)
    ok = fgsm.success
    flat = lambda A: A.reshape(len(A), -1)  # noqa: E731
    j_fgsm, j_exact = judge.predict(flat(fgsm.X_flipped[ok])), judge.predict(flat(exact.X_flipped[ok]))
    d1, d2 = flat(fgsm.delta[ok]).astype(float), flat(exact.delta[ok]).astype(float)
    cos = (d1 * d2).sum(1) / np.maximum(np.linalg.norm(d1, axis=1) * np.linalg.norm(d2, axis=1), 1e-12)
    domain_x = ImageDomain.from_data(data, ExactFlip(data))
    nf_exact = search("neuronfair_image", detector, domain_x, data.X[search_seeds(data, 400, 0)])
    return {"test_faces": len(te), "fgsm_success_rate": round(fgsm.success_rate, 4),
            "judge_accuracy": round(float(judge.score(flat(data.X[te]), data.attribute[te])), 4),
            "judge_agrees_with_exact_flip": round(float((j_fgsm == j_exact).mean()), 4),
            "judge_sees_tone_change_exact": round(float((j_exact != data.attribute[te][ok]).mean()), 4),
            "median_cosine_fgsm_vs_exact_change": round(float(np.median(cos)), 4),
            "fgsm_median_linf": round(float(np.median(fgsm.linf[ok])), 4),
            "exact_median_linf": round(float(np.median(exact.linf[ok])), 4),
            "neuronfair_idis_exact_flip": nf_exact["idis"], "neuronfair_strict_idis_exact_flip": nf_exact["strict_idis"]}


def timing(data, detector, flipper, n: int = 1000) -> dict:
    faces = data.X[data.y == 1]
    seeds = np.concatenate([faces] * int(np.ceil(n / len(faces))))[:n]      # the faces, repeated up to n
    domain = ImageDomain.from_data(data, flipper)
    row = search("neuronfair_image", detector, domain, seeds)
    row.pop("result")
    return {"seeds": n, "seconds": row["seconds"], "idis": row["idis"], "load_average": os.getloadavg(),
            "cpu_count": os.cpu_count()}


def neuronfair_trace(data, detector, flipper, rows) -> list[dict]:
    """What NeuronFair's global steps do to the seeds that are not yet IDIs: per step the median L-inf and L2 size
    of the step ``0.15 * |g + g'|``, the share of the biased neurons that are 0 (ReLU) on ``x``, and the median
    probability of "face" (a step from 1.0 toward 0.5 would be a step toward the decision boundary)."""
    from fairnb.search.methods.image_flip import NeuronFairImage

    trace = []

    class Traced(NeuronFairImage):
        def _pair_gradients(self, ctx, X, XC, PX, PC, *, rows, t, phase):
            g, gc = super()._pair_gradients(ctx, X, XC, PX, PC, rows=rows, t=t, phase=phase)
            step = (self.global_step * np.abs(g + gc)).reshape(len(X), -1)
            a = detector.layer_output(X.astype(np.float32), self.interpretation_.biased_layer)[:, self._gradient.biased]
            trace.append({"t": t, "live": len(X), "step_linf": round(float(np.median(step.max(1))), 4),
                          "step_l2": round(float(np.median(np.sqrt((step ** 2).sum(1)))), 4),
                          "biased_neurons_at_zero": round(float((a == 0).mean()), 4),
                          "p_face": round(float(np.median(PX[:, 1])), 4)})
            return g, gc

    Traced(random_state=0).run(detector, ImageDomain.from_data(data, flipper), seeds=data.X[rows])
    return trace


def run(seeds, n_seeds: int, size: int, epochs: int, exact: bool) -> dict:
    import tensorflow as tf

    tf.config.experimental.enable_op_determinism()
    out = {"machine": machine(), "settings": {"size": size, "retrain_epochs": epochs, "seeds": list(seeds),
                                              "n_seeds": n_seeds, "biased": BIASED, "methods": METHODS},
           "paper": PAPER, "setups": [], "searches": [], "retraining": []}
    for name in ("lfw", "faces"):
        for seed in seeds:
            for biased in (True, False):
                data, detector, flipper, info = setup(name, biased, size, seed)
                out["setups"].append(info)
                print(info, flush=True)
                label = {"data": name, "seed": seed, "biased": biased, "flip": "fgsm"}
                rows = search_seeds(data, n_seeds, seed)
                table, results = compare(data, detector, flipper, label, rows)
                out["searches"] += table
                if exact and name == "faces":
                    out["searches"] += compare(data, detector, ExactFlip(data), {**label, "flip": "exact"}, rows)[0]
                if biased:
                    out["retraining"] += retraining(name, data, detector, flipper, results, epochs, seed)
                    if name == "faces" and seed == seeds[0]:
                        out["flip_agreement"] = flip_agreement(data, detector, flipper)
                        print(out["flip_agreement"], flush=True)
    return out


def _mean(values) -> float:
    return float(np.mean(values)) if len(values) else float("nan")


def _group(rows, *keys) -> dict:
    out = {}
    for r in rows:
        out.setdefault(tuple(r[k] for k in keys), []).append(r)
    return out


def markdown(out) -> str:
    s = out["settings"]
    lines = ["# Image benchmark: NeuronFair's image variant, ADF and EIDIG (global phase), over detector seeds", "",
             f"Images {s['size']}x{s['size']}x3; detector seeds {s['seeds']}; biased detectors: {s['biased']} "
             f"(label bias), unbiased: true labels. Searches: global phase, step 0.15, 40 iterations, unsigned "
             f"directions, from {s['n_seeds']} random training faces per detector (the same for every method). "
             f"Machine: {out['machine']}. Generated by `benchmarks/images.py` (its docstring says how).", "",
             "## Setups: the planted bias on held-out faces, per detector seed", "",
             "| data | seed | detector | accuracy | DR light | DR dark | gap | decisions changed by exact flip | "
             "AUC (FGSM pairs) | AUC (exact pairs) | f_sa acc. | FGSM flip success |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for i in out["setups"]:
        lines.append(f"| {i['data']} | {i['seed']} | {'biased' if i['biased'] else 'unbiased'} | {i['accuracy']} | "
                     f"{i['dr_light']} | {i['dr_dark']} | {i['dr_light'] - i['dr_dark']:+.3f} | {i['changed_exact']} | "
                     f"{i['auc_fgsm']} | {i['auc_exact']} | {i['f_sa_accuracy']} | {i['test_flip_success']} |")
    lines += ["", "Means over seeds:", ""]
    for (data, biased), rows in _group(out["setups"], "data", "biased").items():
        lines.append(f"- {data}, {'biased' if biased else 'unbiased'}: DR gap "
                     f"{_mean([r['dr_light'] - r['dr_dark'] for r in rows]):+.3f}, decisions changed by the exact flip "
                     f"{_mean([r['changed_exact'] for r in rows]):.3f}, AUC FGSM {_mean([r['auc_fgsm'] for r in rows]):.4f}, "
                     f"AUC exact {_mean([r['auc_exact'] for r in rows]):.4f}")
    lines += ["", "## Global IDIs (Table 10), per detector seed", "",
              "| data | flip | detector | method | IDIs per seed | mean | strict (f_sa disagrees), mean | GSR, mean | "
              "flip success, min | s, mean |", "|---|---|---|---|---|---|---|---|---|---|"]
    groups = _group(out["searches"], "data", "flip", "biased", "method")
    for (data, flip, biased, method), rows in groups.items():
        lines.append(f"| {data} | {flip} | {'biased' if biased else 'unbiased'} | {method} | "
                     f"{' / '.join(str(r['idis']) for r in rows)} | {_mean([r['idis'] for r in rows]):.1f} | "
                     f"{_mean([r['strict_idis'] for r in rows]):.1f} | {_mean([r['gsr'] for r in rows]):.4f} | "
                     f"{min(r['flip_success_rate'] for r in rows):.3f} | {_mean([r['seconds'] for r in rows]):.1f} |")
    lines += ["", "Ratios of the means NeuronFair / ADF and / EIDIG (paper: 4.34x and 2.07x), and per seed:", ""]
    for (data, flip, biased), rows in _group(out["searches"], "data", "flip", "biased").items():
        m = {k: [r["idis"] for r in rows if r["method"] == k] for k in METHODS}
        nf, adf, ei = (_mean(m[k]) for k in METHODS)
        per = ", ".join(f"{a / b if b else float('inf'):.2f}/{a / c if c else float('inf'):.2f}"
                        for a, b, c in zip(*(m[k] for k in METHODS)))
        lines.append(f"- {data}, {flip}, {'biased' if biased else 'unbiased'}: {nf / adf if adf else float('inf'):.2f}x ADF, "
                     f"{nf / ei if ei else float('inf'):.2f}x EIDIG (per seed ADF/EIDIG: {per})")
    lines += ["", "## Retraining (Table 11), biased detectors", "",
              f"Fine-tuning {s['retrain_epochs']} epochs; changes are relative to the detector before (mean over seeds; "
              "per seed in images.json). Paper: AUC -53.8 % (NeuronFair), -8.1 % (ADF), -10.9 % (EIDIG); "
              "DR -0.87 points (NeuronFair).", "",
              "| data | rows | added, mean | AUC FGSM change | AUC exact change | DR change (points) | "
              "DR dark change (points) | decisions changed by exact flip |", "|---|---|---|---|---|---|---|---|"]
    for (data,), rows in _group(out["retraining"], "data").items():
        before = {r["seed"]: r for r in rows if r["method"] == "before"}
        for (name,), rs in _group([r for r in rows if r["method"] != "before"], "method").items():
            rel = lambda k: _mean([r[k] / before[r["seed"]][k] - 1 for r in rs if before[r["seed"]][k]])  # noqa: E731
            pts = lambda k: _mean([100 * (r[k] - before[r["seed"]][k]) for r in rs])  # noqa: E731
            dr = lambda r: (r["dr_light"] + r["dr_dark"]) / 2  # noqa: E731
            lines.append(f"| {data} | {name} | {_mean([r['added'] for r in rs]):.0f} | {rel('auc_fgsm'):+.1%} | "
                         f"{rel('auc_exact'):+.1%} | {_mean([100 * (dr(r) - dr(before[r['seed']])) for r in rs]):+.1f} | "
                         f"{pts('dr_dark'):+.1f} | {_mean([r['changed_exact'] for r in rs]):.3f} (before "
                         f"{_mean([b['changed_exact'] for b in before.values()]):.3f}) |")
    lines += ["", "## Targets of issue #14", "", *targets(out), "", *reading(out), ""]
    if "flip_agreement" in out:
        lines += ["## FGSM flips versus exact flips (synthetic faces, biased detector, first seed)", "",
                  *[f"- {k}: {v}" for k, v in out["flip_agreement"].items()], ""]
    if "neuronfair_trace" in out:
        lines += ["## NeuronFair's steps on the seeds that are not yet IDIs (tinted LFW, biased detector, first seed)", "",
                  "| step | live seeds | step L-inf (median) | step L2 (median) | biased neurons at 0 | P(face) (median) |",
                  "|---|---|---|---|---|---|"]
        tr = out["neuronfair_trace"]
        for r in [x for x in tr if x["t"] in (0, 1, 2, 5, 10, 20, 30)] + tr[-1:]:
            lines.append(f"| {r['t']} | {r['live']} | {r['step_linf']} | {r['step_l2']} | {r['biased_neurons_at_zero']} | "
                         f"{r['p_face']} |")
        lines.append("")
    if "timing" in out:
        lines += ["## Timing", "", *[f"- {k}: {v}" for k, v in out["timing"].items()], ""]
    return "\n".join(lines)


def reading(out) -> list[str]:
    """How to read the numbers: the measured mechanisms behind the targets."""
    n = out["settings"]["n_seeds"]
    share = {m: _mean([r["idis"] / n for r in out["searches"] if r["biased"] and r["flip"] == "fgsm" and r["method"] == m])
             for m in METHODS}
    trace = out.get("neuronfair_trace") or []
    first = trace[0] if trace else {}
    later = [r for r in trace if r["t"] >= 1]
    return [
        "Reading the numbers:", "",
        "- **The planted bias shows now.** Every biased detector misses most dark faces and the exact tone flip "
        "changes its decision on most held-out dark faces; the unbiased ones show no gap. The earlier knob "
        "(`kept_in_training=0.15`, under-representation) left tinted LFW's dark-face detection rate at 0.94-1.0 over "
        "seeds 0-1 (exploratory run, same trainer): nothing to find. The attribute-effect AUC (Section 5.9, max layer) "
        "is higher on the biased detector than on the unbiased one for every seed and data set, with FGSM and with "
        "exact pairs (setups table).",
        f"- **One IDI per seed caps the count, and the baselines reach the cap.** On the biased detectors ADF and EIDIG "
        f"find an IDI from {share['adf_image']:.0%} and {share['eidig_image']:.0%} of the seeds (NeuronFair "
        f"{share['neuronfair_image']:.0%}); Algorithm 2 stops a seed at its first IDI, so no method can exceed the seed "
        "count, and NeuronFair cannot find more than baselines that saturate. The paper's baselines did not saturate "
        "(GSR 11-62 %).",
        "- **NeuronFair is slower to reach the boundary.** Its dynamic loss (Eq. 4) pushes the biased neurons of x "
        "away from those of x'; ascent drives many of them to 0 (ReLU), where their gradient vanishes (digest 7.1)"
        + (f": in the step trace below {later[0]['biased_neurons_at_zero']:.0%} are 0 after one step "
           f"({first['biased_neurons_at_zero']:.0%} at t=0), and the median P(face) of the seeds still searching falls "
           f"only from {later[0]['p_face']:.2f} to {later[-1]['p_face']:.2f} over the 40 steps; of the "
           f"{later[0]['live']} seeds still searching after the first step, {later[0]['live'] - later[-1]['live']} "
           "found an IDI later (the trace's detector is retrained in its own process, not bit-identical to the "
           "table's). " if later else ". ")
        + "ADF and EIDIG follow the output's loss / probability gradients, which point at the boundary, and need 1-5 "
        "steps. The variant was checked against the digest step by step (the t=0 check is the same for all three "
        "methods: 18 of 30 seeds on one detector for each; the biased layer from <x, x + delta_senatt>; Eq. 4's "
        "weights; momentum 0.1; random neurons re-drawn at t = 0, 10, ...; step 0.15 (g + g') unsigned; clip; 41 "
        "checks) and the baselines were not tuned down.",
        "- **On detectors without the bias NeuronFair finds more than the baselines**: its first unsigned step is large "
        + (f"(median L-inf {first['step_linf']} per pixel) " if first else "")
        + "and moves faces off the data, where decisions are fragile; this is why 'far fewer on the unbiased detector' "
        "holds on tinted LFW but not on the synthetic faces, and with exact flips NeuronFair finds IDIs for most seeds "
        "of the unbiased synthetic-face detectors.",
        "- **Retraining**: the IDIs are labelled face (all seeds are faces; their training label may carry the label "
        "bias). Adding as many *ordinary* training faces corrects the label bias directly and is the strongest control; "
        "the table shows whether a method's pairs beat it and the no-addition control.",
    ]


def targets(out) -> list[str]:
    """Each target of the issue, met or not, from the means over detector seeds."""
    said = lambda ok: "met" if ok else "NOT met"  # noqa: E731
    mean = {k: _mean([r["idis"] for r in rows]) for k, rows in _group(out["searches"], "data", "flip", "biased",
                                                                       "method").items()}
    lines = []
    for data in ("lfw", "faces"):
        for flip in ("fgsm", "exact"):
            nf, adf, ei = (mean.get((data, flip, True, m)) for m in METHODS)
            if nf is None:
                continue
            lines.append(f"- {data} ({flip} flips): NeuronFair finds more global IDIs than ADF and EIDIG (means "
                         f"{nf:.1f} vs {adf:.1f}, {ei:.1f}; ratios {nf / adf:.2f}x, {nf / ei:.2f}x, paper 4.3x, 2.1x): "
                         f"{said(nf > adf and nf > ei)}")
            fair = mean.get((data, flip, False, "neuronfair_image"))
            lines.append(f"- {data} ({flip} flips): far fewer (< half) NeuronFair IDIs on the detector trained without "
                         f"the bias (means {fair:.1f} vs {nf:.1f}): {said(fair < nf / 2)}")
    rates = [r["flip_success_rate"] for r in out["searches"] if r["flip"] == "fgsm"]
    lines.append(f"- FGSM flip success >= 90 % of seeds (min over all searches {min(rates):.3f}): {said(min(rates) >= 0.9)}")
    for (data,), rows in _group(out["retraining"], "data").items():
        before = {r["seed"]: r for r in rows if r["method"] == "before"}
        change = {name: _mean([r["auc_fgsm"] / before[r["seed"]]["auc_fgsm"] - 1 for r in rs])
                  for (name,), rs in _group([r for r in rows if r["method"] != "before"], "method").items()}
        nf_rows = [r for r in rows if r["method"] == "neuronfair_image"]
        dr = _mean([50 * (r["dr_light"] + r["dr_dark"] - before[r["seed"]]["dr_light"] - before[r["seed"]]["dr_dark"])
                    for r in nf_rows])
        nf = change["neuronfair_image"]
        lines.append(f"- {data}: retraining with NeuronFair's IDIs lowers the attribute-effect AUC (FGSM pairs; paper "
                     f"-54 %; here {nf:+.1%}) with the detection rate not more than 2 points lower ({dr:+.1f} points) "
                     f"beyond the same fine-tuning without additions (control {change['control']:+.1%}): "
                     f"{said(nf < change['control'] and dr >= -2)}; beyond adding as many ordinary training faces "
                     f"(control_faces {change['control_faces']:+.1%}): {said(nf < change['control_faces'] and dr >= -2)}; "
                     f"beyond the flip pairs without delta_bias (control_flips {change['control_flips']:+.1%}): "
                     f"{said(nf < change['control_flips'] and dr >= -2)}")
    if "timing" in out:
        t = out["timing"]
        lines.append(f"- global phase over {t['seeds']} seeds < 60 s on 2 cores ({t['seconds']} s, load average "
                     f"{', '.join(f'{x:.1f}' for x in t['load_average'])}; contended unless the load is low): "
                     f"{said(t['seconds'] < 60)}")
    return lines


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size", type=int, default=32)
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="detector seeds")
    p.add_argument("--n-seeds", type=int, default=300, help="seed faces per detector")
    p.add_argument("--retrain-epochs", type=int, default=5)
    p.add_argument("--exact", action="store_true", help="also search with exact flips on the synthetic faces")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "images"))
    p.add_argument("--markdown-only", action="store_true", help="rewrite OUT.md from OUT.json, run nothing")
    p.add_argument("--time-only", action="store_true", help="only the timing target, added to OUT.json")
    p.add_argument("--trace-only", action="store_true",
                   help="only NeuronFair's step trace (biased LFW detector, first seed), added to OUT.json")
    a = p.parse_args(argv)
    path = Path(a.out + ".json")
    if a.trace_only:
        import tensorflow as tf

        tf.config.experimental.enable_op_determinism()
        out = json.loads(path.read_text())
        data, detector, flipper, _ = setup("lfw", True, a.size, a.seeds[0])
        out["neuronfair_trace"] = neuronfair_trace(data, detector, flipper, search_seeds(data, a.n_seeds, a.seeds[0]))
        path.write_text(json.dumps(out, indent=1, default=float))
        a.markdown_only = True
    if a.time_only:
        import tensorflow as tf

        tf.config.experimental.enable_op_determinism()
        out = json.loads(path.read_text()) if path.exists() else {}
        out["timing"] = timing(*setup("faces", True, a.size, a.seeds[0])[:3])
        print(out["timing"], flush=True)
        path.write_text(json.dumps(out, indent=1, default=float))
        a.markdown_only = "searches" in out
    if not a.markdown_only and not a.time_only:
        out = run(a.seeds, a.n_seeds, a.size, a.retrain_epochs, a.exact)
        old = json.loads(path.read_text()) if path.exists() else {}
        if "timing" in old:
            out["timing"] = old["timing"]
        path.write_text(json.dumps(out, indent=1, default=float))
    if a.markdown_only or not (a.time_only or a.trace_only):
        Path(a.out + ".md").write_text(markdown(json.loads(path.read_text())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
