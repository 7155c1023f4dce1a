"""What the pixel budget does to an image search on a biased detector and on its tone-blind twin (issue
"findings that mean something", the 3x target on synthetic faces).

The twins of ``benchmarks/twins.py`` (synthetic faces, 16 pixels; the biased detector learnt from labels that
call 65 % of the dark training faces non-faces; the twin from true labels with every training face also
re-rendered in the other tone), the FGSM flip (``faces``) and the exact re-rendering (``faces_exact``). Every
image method runs on both under ``[PixelBudget(linf), AttributeConfirmed()]`` for each budget and global step.
Per run: the material IDIs (``summary()["material_pairs"]``), the pairs found on the seed as it is (iteration
0: nothing moved), and the pairs whose face the search moved to the budget's edge (some pixel changed by the
whole budget). Usage::

    python benchmarks/image_budgets.py --seeds 0,1,2 --budgets 0.1,0.05,8/255,0.02,0.01 --steps 0.15
    python benchmarks/image_budgets.py --seeds 0 --budgets 0.1,8/255 --steps 0.15,0.05,0.015 --out /tmp/steps
"""
from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import twins  # noqa: E402
from fairnb.bench import machine, save_report  # noqa: E402
from fairnb.constraints import AttributeConfirmed, PixelBudget  # noqa: E402
from fairnb.search import get_method  # noqa: E402

KINDS = ("faces", "faces_exact")


def measure(kind, seed, method, linf, step, twin, model, dom, seeds) -> dict:
    r = get_method(method)(random_state=0, progress=False, global_step=step, **twins.BUDGETS[method],
                           constraints=[PixelBudget(linf), AttributeConfirmed()]).run(model, dom, seeds=seeds)
    row = {"kind": kind, "seed": seed, "method": method, "linf": linf, "step": step, "twin": twin,
           "material": r.summary()["material_pairs"], "valid": r.count(), "natural_pairs": 0, "at_edge": 0}
    if len(r):
        moved = np.abs(r.inputs - r.extras["seeds"][r.seed_ids]).reshape(len(r), -1).max(axis=1)
        row["natural_pairs"] = sum(r.details(i)["iteration"] == 0 for i in range(len(r)))
        row["at_edge"] = int((moved >= linf - 1e-6).sum())
    return row


def run(seeds, budgets, steps) -> list[dict]:
    rows = []
    for seed in seeds:
        for kind in KINDS:
            dom, seed_faces, models = twins.faces(seed, exact=kind == "faces_exact")
            for method in twins.IMAGES:
                for linf in budgets:
                    for step in steps:
                        for twin in twins.TWINS:
                            rows.append(measure(kind, seed, method, linf, step, twin, models[twin], dom, seed_faces))
                            print(rows[-1], flush=True)
    return rows


def markdown(report) -> str:
    rows = report["rows"]
    lines = ["# Image searches under a pixel budget: a biased detector and its tone-blind twin\n",
             f"`{report['command']}`; machine {report['machine']}.\n",
             "Material IDIs of 200 seed faces, means over the detector seeds; *natural*: pairs found on the seed as it "
             "is (nothing moved); *at the edge*: pairs whose face was moved by the whole budget in some pixel (shares "
             "of the valid pairs). Ratio: biased / twin.\n",
             "| flip | method | budget (L∞) | step | biased | twin | ratio | biased: natural | twin: natural | "
             "twin: at the edge |", "|" + "---|" * 10]
    keys = dict.fromkeys((r["kind"], r["method"], r["linf"], r["step"]) for r in rows)
    for kind, method, linf, step in keys:
        mine = [r for r in rows if (r["kind"], r["method"], r["linf"], r["step"]) == (kind, method, linf, step)]
        b = [r for r in mine if r["twin"] == "biased"]
        u = [r for r in mine if r["twin"] == "unbiased"]
        mb, mu = np.mean([r["material"] for r in b]), np.mean([r["material"] for r in u])
        lines.append(f"| {'exact' if kind == 'faces_exact' else 'FGSM'} | {method} | {_budget(linf)} | {step:g} | "
                     f"{mb:.1f} | {mu:.1f} | {mb / mu if mu else float('inf'):.2f}x | {_share(b, 'natural_pairs')} | "
                     f"{_share(u, 'natural_pairs')} | {_share(u, 'at_edge')} |")
    return "\n".join(lines) + "\n"


def _share(rows, key) -> str:
    valid = sum(r["valid"] for r in rows)
    return f"{100 * sum(r[key] for r in rows) / valid:.0f} %" if valid else "n/a"


def _budget(linf) -> str:
    levels = Fraction(linf * 255).limit_denominator(10)
    return f"{linf:.3g}" + (f" ({levels.numerator}/255)" if levels.denominator == 1 else "")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--budgets", default="0.1,0.05,8/255,0.02,0.01", help="L-inf budgets (fractions allowed)")
    parser.add_argument("--steps", default="0.15", help="global steps")
    parser.add_argument("--out", default=str(twins.RESULTS / "image_budgets"))
    args = parser.parse_args(argv)
    budgets = [float(Fraction(b)) for b in args.budgets.split(",")]
    report = {"command": "python benchmarks/image_budgets.py " + " ".join(argv or sys.argv[1:]), "machine": machine(),
              "rows": run([int(s) for s in args.seeds.split(",")], budgets, [float(s) for s in args.steps.split(",")])}
    save_report(args.out, report, markdown(report), default=int)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
