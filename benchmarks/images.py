"""Image benchmark: NeuronFair's image experiments (Tables 10 and 11) at laptop scale, with fairnb.

Two face / non-face data sets with a synthetic protected attribute (skin tone), 32 x 32 RGB:

* **tinted LFW**: scikit-image's 100 LFW faces + 100 non-faces, augmented x8 (mirror, 1-px shifts), a skin-tone
  tint in the face region (``fairnb.images.load_tinted_lfw``); 800 faces;
* **synthetic faces**: ``fairnb.images.make_faces`` (2,000 rendered images, about 1,000 faces).

For each, a **biased** detector (``kept_in_training=0.15``: only 15 % of the dark-toned faces stay in its
training split) and an **unbiased** one (all kept) are trained (``train_face_detector``, 10 epochs), f_sa =
frozen trunk + [512, 256, 128, 64, 16] head is fitted on the training faces' tones (``FGSMFlip``), and
``neuronfair_image``, ``adf_image`` and ``eidig_image`` (global phase, step 0.15, 40 iterations, unsigned
directions; the same seeds for all) search from every face. Reported per run: unique IDIs (Table 10's
count), the stricter count where f_sa still disagrees at the end, GSR (IDIs per distinct generated image),
seconds, and the FGSM flip's success rate. The tabular rules (``signed=True``, step 2/255 per pixel) are
run too, as an ablation.

**FGSM versus exact flips** (synthetic faces, biased detector): an independent tone judge (logistic
regression on the pixels of training faces, not sharing anything with the detector) labels each FGSM-flipped
face and its exact re-render; "agreement" is the share of successful FGSM flips the judge gives the
exact flip's tone; also the cosine between the two changes, and the IDIs NeuronFair finds with each flipper.

**Exact flips** (``--exact-only``): the three methods on the synthetic faces' biased and unbiased detectors
with ``ExactFlip`` (the true counterfactual) instead of FGSM flips.

**Timing**: the NeuronFair global phase over 1,000 seed images (synthetic faces, repeated to 1,000 if
fewer), wall clock, with the machine's load average.

**Retraining** (Table 11): each method searches from the biased LFW detector's *training* faces (so no
held-out face is ever perturbed into the training set); ``fairnb.mitigate`` fine-tunes the detector with
all its IDIs and their counterparts labelled "face" (``augment="pair"``, ``labels="seed"``), plus a control
row (fine-tuning without IDIs); measures: the attribute-effect AUC (max layer, on held-out faces and their
FGSM flips) and the detection rate of held-out faces.

Usage (about 40 minutes on the busy 2-core machine of the committed results)::

    .venv/bin/python benchmarks/images.py
    .venv/bin/python benchmarks/images.py --exact-only     # adds the exact-flip searches (synthetic faces)

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
from fairnb.search import get_method  # noqa: E402

METHODS = ("neuronfair_image", "adf_image", "eidig_image")
# NeuronFair Table 10 (digest 5.8): global-phase image IDIs; Table 11 (5.9): AUC before / after retraining.
PAPER = {"idis_ratio_vs_adf": 4.34, "idis_ratio_vs_eidig": 2.07, "auc_drop_neuronfair": 0.5377,
         "auc_drop_adf": 0.0806, "auc_drop_eidig": 0.1090, "dr_drop_points_neuronfair": 0.87}


def setup(name: str, kept: float, size: int, seed: int):
    data = (load_tinted_lfw(size=size, augment=8, kept_in_training=kept, random_state=seed) if name == "lfw"
            else make_faces(n=2000, size=size, kept_in_training=kept, random_state=seed))
    t0 = time.perf_counter()
    detector = train_face_detector(data, epochs=10, random_state=seed)
    train, test = data.split_indices()
    faces_train = train[data.y[train] == 1]
    flipper = FGSMFlip(epochs=10, random_state=seed).fit(detector, data.X[faces_train], data.attribute[faces_train])
    test_faces = test[data.y[test] == 1]
    info = {"data": name, "kept_in_training": kept, "images": len(data), "faces": int((data.y == 1).sum()),
            "train_seconds": round(time.perf_counter() - t0, 1), "f_sa_accuracy": round(flipper.accuracy_, 4),
            "test_accuracy": round(float((detector.predict_proba(data.X[test]).argmax(1) == data.y[test]).mean()), 4),
            "detection_rate_by_tone": {str(v): round(float((detector.predict_proba(data.X[test_faces[data.attribute[
                test_faces] == v]]).argmax(1) == 1).mean()), 4) for v in (0, 1)}}
    return data, detector, flipper, info


def search(method, detector, domain, seeds, **params) -> dict:
    t0 = time.perf_counter()
    r = get_method(method)(random_state=0, **params).run(detector, domain, seeds=seeds)
    seconds = time.perf_counter() - t0
    details = [r.details(i) for i in range(len(r))]
    return {"method": method, **{k: v for k, v in params.items()}, "idis": r.count(), "strict_idis": r.extras["strict_idis"],
            "gsr": r.extras["gsr"], "generated": r.extras["generated"], "seconds": round(seconds, 1),
            "flip_success_rate": r.extras["flip_success_rate"],
            "median_bias_l2": round(float(np.median([d["bias_l2"] for d in details])), 4) if details else None,
            "biased_layer": r.extras.get("biased_layer"), "result": r}


def compare(data, detector, flipper, label: str, signed: bool) -> list[dict]:
    domain = ImageDomain.from_data(data, flipper)
    seeds = data.X[data.y == 1]
    rows = []
    for method in METHODS:
        params = {"signed": True, "global_step": 2 / 255} if signed else {}
        row = search(method, detector, domain, seeds, **params)
        row.pop("result")
        rows.append({"setting": label, **row})
        print(rows[-1], flush=True)
    return rows


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
    nf_exact = search("neuronfair_image", detector, domain_x, data.X[data.y == 1])
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


def retraining(data, detector, flipper, epochs: int) -> dict:
    domain = ImageDomain.from_data(data, flipper)
    train, _ = data.split_indices()
    seeds = data.X[train[data.y[train] == 1]]
    results = {m: search(m, detector, domain, seeds)["result"] for m in METHODS}
    report = fairnb.mitigate(detector, results, data, augment="pair", epochs=epochs, control=True)
    frame = report.frame
    return {"idis": {m: len(r) for m, r in results.items()}, "epochs": epochs,
            "rows": frame[["method", "measure", "before", "after", "change", "added"]].round(4).to_dict("records")}


def exact_searches(size: int, seed: int) -> list[dict]:
    """The three methods with exact flips (the true counterfactual) on the synthetic faces, biased and unbiased
    detector: IDIs that are about the tone itself, not an adversarial artefact of f_sa."""
    rows = []
    for kept in (0.15, 1.0):
        data, detector, _, _ = setup("faces", kept, size, seed)
        domain = ImageDomain.from_data(data, ExactFlip(data))
        for method in METHODS:
            row = search(method, detector, domain, data.X[data.y == 1])
            row.pop("result")
            rows.append({"setting": f"faces, {'biased' if kept < 1 else 'unbiased'}, exact flips", **row})
            print(rows[-1], flush=True)
    return rows


def run(size: int, epochs: int, seed: int, skip_unbiased: bool = False) -> dict:
    import tensorflow as tf

    tf.config.experimental.enable_op_determinism()
    out = {"machine": machine(), "settings": {"size": size, "retrain_epochs": epochs, "seed": seed,
                                              "methods": METHODS}, "paper": PAPER, "setups": [], "searches": []}
    models = {}
    for name in ("lfw", "faces"):
        for kept in ((0.15,) if skip_unbiased else (0.15, 1.0)):
            data, detector, flipper, info = setup(name, kept, size, seed)
            out["setups"].append(info)
            print(info, flush=True)
            label = f"{name}, {'biased' if kept < 1 else 'unbiased'}"
            out["searches"] += compare(data, detector, flipper, label, signed=False)
            if kept < 1:
                out["searches"] += compare(data, detector, flipper, label + ", signed", signed=True)
                models[name] = (data, detector, flipper)
    out["flip_agreement"] = flip_agreement(*models["faces"])
    print(out["flip_agreement"], flush=True)
    out["timing"] = timing(*models["faces"])
    print(out["timing"], flush=True)
    out["retraining"] = retraining(*models["lfw"], epochs=epochs)
    print(out["retraining"], flush=True)
    return out


def markdown(out) -> str:
    s = out["settings"]
    lines = ["# Image benchmark: NeuronFair's image variant, ADF and EIDIG (global phase)", "",
             f"Images {s['size']}x{s['size']}x3; global phase, step 0.15, 40 iterations, unsigned directions unless "
             f"'signed' (tabular rule, step 2/255); seeds = every face. Machine: {out['machine']}.", "",
             "## Setups", "", "| data | kept | images | faces | f_sa acc. | detector acc. | DR light | DR dark |",
             "|---|---|---|---|---|---|---|---|"]
    for i in out["setups"]:
        dr = i["detection_rate_by_tone"]
        lines.append(f"| {i['data']} | {i['kept_in_training']} | {i['images']} | {i['faces']} | {i['f_sa_accuracy']} | "
                     f"{i['test_accuracy']} | {dr['0']} | {dr['1']} |")
    lines += ["", "## Global IDIs (Table 10)", "",
              "| setting | method | IDIs | strict (f_sa disagrees) | GSR | generated | flip success | s |",
              "|---|---|---|---|---|---|---|---|"]
    for r in out["searches"]:
        strict = "n/a (no f_sa)" if "exact" in r["setting"] else r["strict_idis"]
        lines.append(f"| {r['setting']} | {r['method']} | {r['idis']} | {strict} | {r['gsr']:.4f} | "
                     f"{r['generated']} | {r['flip_success_rate']} | {r['seconds']} |")
    lines += ["", "Ratios NeuronFair / ADF and / EIDIG (paper: 4.34x and 2.07x):", ""]
    by = {}
    for r in out["searches"]:
        by.setdefault(r["setting"], {})[r["method"]] = r["idis"]
    for setting, m in by.items():
        nf, adf, ei = m.get("neuronfair_image", 0), m.get("adf_image", 0), m.get("eidig_image", 0)
        lines.append(f"- {setting}: {nf / adf if adf else float('inf'):.2f}x ADF, {nf / ei if ei else float('inf'):.2f}x EIDIG")
    lines += ["", "## Targets of issue #14", "", *targets(out, by), "",
              "Reading the numbers: one detector per setting (TensorFlow op determinism; other seeds give other "
              "detectors and, in exploratory runs, NeuronFair / ADF ratios from below 1 to 3), so single ratios are "
              "weak evidence. With FGSM flips the pairs measure how adversarially fragile the shared trunk is as much "
              "as the planted bias: an independent tone judge never sees the FGSM-flipped face as the other tone "
              "(below), and the unbiased synthetic-face detector gets more FGSM IDIs than the biased one. Exact flips "
              "do not separate the detectors either: 40 unsigned steps bring almost every face to the decision "
              "boundary, where a visible tone change flips the decision also for the unbiased detector, so a global "
              "IDI count measures how reachable the boundary is more than the planted bias (the detection rates by "
              "tone in the setups table show the bias). Training is not bit-reproducible across processes here: the "
              "biased synthetic setup gave 996 exact-flip NeuronFair IDIs in the main run and 751 in --exact-only."]
    f = out["flip_agreement"]
    lines += ["", "## FGSM flips versus exact flips (synthetic faces, biased detector)", "",
              *[f"- {k}: {v}" for k, v in f.items()], "", "## Timing", "",
              *[f"- {k}: {v}" for k, v in out["timing"].items()], "", "## Retraining (Table 11)", "",
              f"IDIs per method (seeds: training faces): {out['retraining']['idis']}; fine-tuning "
              f"{out['retraining']['epochs']} epochs with every IDI and its counterpart labelled face. Paper: AUC "
              "-53.8 % (NeuronFair), -8.1 % (ADF), -10.9 % (EIDIG); DR -0.87 points (NeuronFair).", "",
              "| method | measure | before | after | change | added |", "|---|---|---|---|---|---|"]
    for r in out["retraining"]["rows"]:
        lines.append(f"| {r['method']} | {r['measure']} | {r['before']} | {r['after']} | {r['change']} | {r['added']} |")
    return "\n".join(lines) + "\n"


def targets(out, by) -> list[str]:
    """Each target of the issue, met or not, from the measured numbers."""
    said = lambda ok: "met" if ok else "NOT met"  # noqa: E731
    lines = []
    for data in ("lfw", "faces"):
        m = by.get(f"{data}, biased", {})
        nf, adf, ei = (m.get(k, 0) for k in METHODS)
        lines.append(f"- {data}: NeuronFair finds more global IDIs than ADF and EIDIG ({nf} vs {adf}, {ei}): "
                     f"{said(nf > adf and nf > ei)}")
        fair = by.get(f"{data}, unbiased", {}).get("neuronfair_image")
        if fair is not None:
            lines.append(f"- {data}: far fewer on the detector trained without the bias ({fair} vs {nf}): "
                         f"{said(fair < nf / 2)}")
    m, fair = by.get("faces, biased, exact flips"), by.get("faces, unbiased, exact flips")
    if m and fair:
        lines.append(f"- faces with exact flips: far fewer on the unbiased detector (NeuronFair {fair.get('neuronfair_image')} "
                     f"vs {m.get('neuronfair_image')}): {said(fair.get('neuronfair_image', 0) < m.get('neuronfair_image', 0) / 2)}")
    rates = [r["flip_success_rate"] for r in out["searches"] if "exact" not in r["setting"]]
    lines.append(f"- FGSM flip success >= 90 % of seeds (min {min(rates):.3f}): {said(min(rates) >= 0.9)}")
    t = out["timing"]
    lines.append(f"- global phase over {t['seeds']} seeds < 60 s on 2 cores ({t['seconds']} s, load average "
                 f"{', '.join(f'{x:.1f}' for x in t['load_average'])}): {said(t['seconds'] < 60)}")
    rows = {(r["method"], r["measure"]): r for r in out["retraining"]["rows"]}
    auc, dr = rows.get(("neuronfair_image", "attribute_auc")), rows.get(("neuronfair_image", "detection_rate"))
    control = rows.get(("control", "attribute_auc"))
    if auc and dr and control:
        lines.append(f"- retraining with the IDIs lowers NeuronFair's attribute-effect AUC (paper -54 %; here "
                     f"{auc['change']:+.1%}, control without IDIs {control['change']:+.1%}) beyond what retraining "
                     f"alone does, with the detection rate within 2 points ({100 * (dr['after'] - dr['before']):+.1f}): "
                     f"{said(auc['after'] < control['after'] and abs(dr['after'] - dr['before']) <= 0.02)}")
    return lines


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size", type=int, default=32)
    p.add_argument("--retrain-epochs", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--skip-unbiased", action="store_true", help="only the biased detectors (quicker)")
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "images"))
    p.add_argument("--markdown-only", action="store_true", help="rewrite OUT.md from OUT.json, run nothing")
    p.add_argument("--exact-only", action="store_true",
                   help="add the exact-flip searches on synthetic faces to OUT.json (run after the rest)")
    a = p.parse_args(argv)
    if a.exact_only:
        import tensorflow as tf

        tf.config.experimental.enable_op_determinism()
        out = json.loads(Path(a.out + ".json").read_text())
        out["searches"] = [r for r in out["searches"] if "exact" not in r["setting"]] + exact_searches(a.size, a.seed)
        Path(a.out + ".json").write_text(json.dumps(out, indent=1, default=float))
        a.markdown_only = True
    if a.markdown_only:
        Path(a.out + ".md").write_text(markdown(json.loads(Path(a.out + ".json").read_text())))
        return 0
    out = run(a.size, a.retrain_epochs, a.seed, a.skip_unbiased)
    Path(a.out + ".json").write_text(json.dumps(out, indent=1, default=float))
    Path(a.out + ".md").write_text(markdown(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
