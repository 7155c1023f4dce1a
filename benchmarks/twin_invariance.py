"""Is RedditBias's "unbiased" twin unbiased about the planted term? Measured on the held-out comments, without
a search: each comment and every race-term variant of it (``domain.variants``), per training recipe of
``benchmarks/twins.py`` (``biased``: the annotations with "black" planted; ``annotations``: the twin as the
twins table trains it; ``counterfactual``: the annotations counterfactually augmented; ``clp``: the annotations
with counterfactual logit pairing, per pairing strength: where its strength is chosen).

Per model: the mean |p - p'| over the swaps that bring "black" in and over all swaps; the share of comments
whose decision a swap changes (the natural rate over all held-out comments with a race term) and the share it
changes by at least 0.1 (material); the share of those comments the model scores within 0.1 of 0.5. Usage::

    python benchmarks/twin_invariance.py --seeds 0,1,2     # -> benchmarks/results/twin_invariance.{json,md}
    python benchmarks/twin_invariance.py --seeds 0 --recipes annotations,clp --strengths 0.05,0.2,1,5 \\
        --out benchmarks/results/clp_strength_text     # the sweep the clp twin's strength is chosen from
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import twins  # noqa: E402
from fairnb.bench import machine, save_report  # noqa: E402

RECIPES = ("biased", "annotations", "counterfactual", "clp")


def measure(seed: int, term: str = "black", recipes=RECIPES, strengths=(None,)) -> list[dict]:
    """One row per recipe (``clp``: one per pairing strength; None: ``twins.CLP_STRENGTH``) of one training seed."""
    dom, _, _, _, y_test, X_test = twins.redditbias_corpus()
    out = []
    for recipe in recipes:
        for strength in strengths if recipe == "clp" else (None,):
            model = twins.redditbias_model(recipe, seed, term, strength=strength)
            used = twins.CLP_STRENGTH["redditbias"] if recipe == "clp" and strength is None else strength
            out.append({"seed": seed, "recipe": recipe, "strength": used,
                        **invariance(model, dom, dom.validate(X_test), y_test, dom.vocab.id(term))})
            print(out[-1], flush=True)
    return out


def invariance(model, dom, texts, y, planted: int) -> dict:
    """How far a race-term swap (every variant of ``domain.variants``) moves ``model`` on ``texts``, and its
    accuracy on their labels ``y``."""
    flat, owner = dom.variants(texts)
    variants, rows = flat[len(texts):], owner[len(texts):]
    brings_in = (variants == planted).any(axis=1) & ~(texts[rows] == planted).any(axis=1)
    sensitive = np.unique(rows)
    p, p_var = model.predict_proba(texts)[:, 1], model.predict_proba(variants)[:, 1]
    shift = np.abs(p_var - p[rows])
    flips = (p_var > 0.5) != (p[rows] > 0.5)
    return {"shift_to_term": float(shift[brings_in].mean()), "shift_all": float(shift.mean()),
            "natural": _share_of(sensitive, rows, flips),
            "natural_material": _share_of(sensitive, rows, flips & (shift >= 0.1)),
            "near_half": float((np.abs(p[sensitive] - 0.5) < 0.1).mean()),
            "accuracy": float(((p > 0.5).astype(int) == np.asarray(y)).mean())}


def _share_of(sensitive, rows, hit) -> float:
    """The share of the comments ``sensitive`` with at least one variant ``hit``."""
    return float(np.isin(sensitive, rows[hit]).mean())


def markdown(report) -> str:
    lines = ["# RedditBias's twins: how far a race-term swap moves each model (held-out comments, no search)\n",
             *[f"* `{command}`" for command in report["command"].split("; ")],
             f"\nMachine {report['machine']}.\n",
             "Means over training seeds (per seed in the JSON). *lambda*: the pairing strength of the `clp` recipe "
             "(counterfactual logit pairing); *shift to \"black\"*: mean |p - p'| over the swaps that bring \"black\" "
             "in; *all swaps*: over every race-term swap; *natural*: the share of held-out comments with a race term "
             "whose decision some swap changes (*material*: by at least 0.1); *near 0.5*: the share of those comments "
             "scored within 0.1 of 0.5; *accuracy*: on the held-out comments' annotations.\n",
             "| recipe | lambda | seeds | shift to \"black\" | all swaps | natural | natural, material | near 0.5 "
             "| accuracy |", "|---|---|---|---|---|---|---|---|---|"]
    for recipe, strength in sorted({(r["recipe"], r.get("strength")) for r in report["rows"]},
                                   key=lambda k: (RECIPES.index(k[0]), k[1] or 0)):
        mine = [r for r in report["rows"] if (r["recipe"], r.get("strength")) == (recipe, strength)]
        mean = {k: np.mean([r[k] for r in mine]) if all(k in r for r in mine) else None
                for k in ("shift_to_term", "shift_all", "natural", "natural_material", "near_half", "accuracy")}
        accuracy = "" if mean["accuracy"] is None else f"{100 * mean['accuracy']:.1f} %"
        lines.append(f"| {recipe} | {'' if strength is None else strength} | {sorted(r['seed'] for r in mine)} | "
                     f"{mean['shift_to_term']:.4f} | {mean['shift_all']:.4f} | {100 * mean['natural']:.1f} % | "
                     f"{100 * mean['natural_material']:.1f} % | {100 * mean['near_half']:.0f} % | {accuracy} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--recipes", default=",".join(RECIPES))
    parser.add_argument("--strengths", help="the clp recipe's pairing strengths (comma-separated; default "
                        "twins.CLP_STRENGTH)")
    parser.add_argument("--update", action="store_true", help="keep OUT.json's rows of other recipes and strengths")
    parser.add_argument("--out", default=str(twins.RESULTS / "twin_invariance"))
    args = parser.parse_args(argv)
    recipes = [r for r in args.recipes.split(",") if r]
    if set(recipes) - set(RECIPES):
        parser.error(f"--recipes must name some of {list(RECIPES)}, got {args.recipes!r}")
    strengths = (None,) if args.strengths is None else tuple(float(v) for v in args.strengths.split(","))
    rows = [r for s in args.seeds.split(",") for r in measure(int(s), recipes=recipes, strengths=strengths)]
    report = {"command": "python benchmarks/twin_invariance.py " + " ".join(argv or sys.argv[1:]),
              "machine": machine(), "rows": rows}
    old = Path(args.out).with_suffix(".json")
    if args.update and old.exists():
        kept = json.loads(old.read_text())
        made = {(r["recipe"], r.get("strength")) for r in rows}
        report["rows"] = [r for r in kept["rows"] if (r["recipe"], r.get("strength")) not in made] + rows
        report["command"] = f"{kept['command']}; {report['command']}"
    save_report(args.out, report, markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
