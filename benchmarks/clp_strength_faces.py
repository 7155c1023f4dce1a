"""The synthetic-face twin trained with counterfactual logit pairing (``benchmarks/twins.py``, ``tone_paired``):
how far the skin tone moves it per pairing strength (lambda), without a search, and what it costs in accuracy;
where ``twins.CLP_STRENGTH["faces"]`` is chosen from (never from the search counts).

Per training seed and strength, on the held-out faces (the test split) and their exact re-renderings in the
other tone: the median and mean |p - p'|, the share whose dark version scores lower
(``face_twin_pairs.seed_gap``), and the detector's accuracy on the held-out images (true labels); beside it
the tone-blind twin (augmentation) the twins table used before. Usage::

    python benchmarks/clp_strength_faces.py --seeds 0 --strengths 0.05,0.2,1,5
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import face_twin_pairs  # noqa: E402
import twins  # noqa: E402
from fairnb.bench import machine, save_report  # noqa: E402


def measure(seed: int, strengths) -> list[dict]:
    from fairnb.images import make_faces

    data = make_faces(n=1200, size=16, random_state=seed)          # the twins' plain data (twins.face_twins)
    _, test = data.split_indices()
    faces = test[data.y[test] == 1]
    recipes = [("tone_blind", None, twins.tone_blind(data, seed))]
    recipes += [("clp", s, twins.tone_paired(data, seed, strength=s)) for s in strengths]
    out = []
    for recipe, strength, model in recipes:
        p = face_twin_pairs.face_proba(model, data.X[faces])
        q = face_twin_pairs.face_proba(model, data.counterfactual(data.X[faces], faces))
        accuracy = float(((face_twin_pairs.face_proba(model, data.X[test]) >= 0.5) == data.y[test]).mean())
        out.append({"seed": seed, "recipe": recipe, "strength": strength, "gap_mean": float(np.abs(p - q).mean()),
                    **face_twin_pairs.seed_gap(data, faces, data.X[faces], model), "accuracy": accuracy})
        print(out[-1], flush=True)
    return out


def markdown(report) -> str:
    lines = ["# The synthetic-face CLP twin: the tone's effect per pairing strength (held-out faces, no search)\n",
             f"`{report['command']}`; machine {report['machine']}.\n",
             "Means over training seeds. On the held-out faces and their exact re-renderings in the other tone: the "
             "median and mean |p - p'|, the share whose dark version scores lower, the mean scores; the accuracy on "
             "all held-out images. *tone_blind*: the augmentation twin; *clp*: counterfactual logit pairing of "
             "strength lambda.\n",
             "| recipe | lambda | seeds | median gap | mean gap | dark lower | p light | p dark | accuracy |",
             "|---|---|---|---|---|---|---|---|---|"]
    for recipe, strength in dict.fromkeys((r["recipe"], r["strength"]) for r in report["rows"]):
        mine = [r for r in report["rows"] if (r["recipe"], r["strength"]) == (recipe, strength)]
        m = {k: np.mean([r[k] for r in mine]) for k in ("seed_gap_median", "gap_mean", "seed_dark_lower",
                                                           "seed_p_light", "seed_p_dark", "accuracy")}
        lines.append(f"| {recipe} | {'' if strength is None else strength} | {[r['seed'] for r in mine]} | "
                     f"{m['seed_gap_median']:.4f} | {m['gap_mean']:.4f} | {100 * m['seed_dark_lower']:.0f} % | "
                     f"{m['seed_p_light']:.3f} | {m['seed_p_dark']:.3f} | {100 * m['accuracy']:.1f} % |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--strengths", default="0.05,0.2,1,5")
    parser.add_argument("--out", default=str(twins.RESULTS / "clp_strength_faces"))
    args = parser.parse_args(argv)
    strengths = [float(v) for v in args.strengths.split(",")]
    report = {"command": "python benchmarks/clp_strength_faces.py " + " ".join(argv or sys.argv[1:]),
              "machine": machine(), "rows": [r for s in args.seeds.split(",") for r in measure(int(s), strengths)]}
    save_report(args.out, report, markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
