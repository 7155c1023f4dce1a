"""Is RedditBias's "unbiased" twin unbiased about the planted term? Measured on the held-out comments, without
a search: each comment and every race-term variant of it (``domain.variants``), per training recipe of
``benchmarks/twins.py`` (``biased``: the annotations with "black" planted; ``annotations``: the twin as the
twins table trains it; ``counterfactual``: the annotations counterfactually augmented).

Per model: the mean |p - p'| over the swaps that bring "black" in and over all swaps; the share of comments
whose decision a swap changes (the natural rate over all held-out comments with a race term) and the share it
changes by at least 0.1 (material); the share of those comments the model scores within 0.1 of 0.5. Usage::

    python benchmarks/twin_invariance.py --seeds 0,1,2     # -> benchmarks/results/twin_invariance.{json,md}
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import twins  # noqa: E402
from fairnb.bench import machine  # noqa: E402

RECIPES = ("biased", "annotations", "counterfactual")


def measure(seed: int, term: str = "black") -> list[dict]:
    from fairnb.text.keras_model import fit_text_classifier

    dom, E, _, _, X_test = twins.redditbias_corpus()
    texts = dom.validate(X_test)
    flat, owner = dom.variants(texts)
    variants, rows = flat[len(texts):], owner[len(texts):]
    planted = dom.vocab.id(term)
    brings_in = (variants == planted).any(axis=1) & ~(texts[rows] == planted).any(axis=1)
    sensitive = np.unique(rows)
    out = []
    for recipe in RECIPES:
        model = fit_text_classifier(*twins.redditbias_training(recipe, seed, term), E, epochs=3, random_state=seed)
        p, p_var = model.predict_proba(texts)[:, 1], model.predict_proba(variants)[:, 1]
        shift = np.abs(p_var - p[rows])
        flips = (p_var > 0.5) != (p[rows] > 0.5)
        out.append({"seed": seed, "recipe": recipe, "shift_to_term": float(shift[brings_in].mean()),
                    "shift_all": float(shift.mean()), "natural": _share_of(sensitive, rows, flips),
                    "natural_material": _share_of(sensitive, rows, flips & (shift >= 0.1)),
                    "near_half": float((np.abs(p[sensitive] - 0.5) < 0.1).mean())})
        print(out[-1], flush=True)
    return out


def _share_of(sensitive, rows, hit) -> float:
    """The share of the comments ``sensitive`` with at least one variant ``hit``."""
    return float(np.isin(sensitive, rows[hit]).mean())


def markdown(report) -> str:
    lines = ["# RedditBias's twins: how far a race-term swap moves each model (held-out comments, no search)\n",
             f"`{report['command']}`; machine {report['machine']}.\n",
             "Means over training seeds (per seed in the JSON). *Shift to \"black\"*: mean |p - p'| over the swaps "
             "that bring \"black\" in; *all swaps*: over every race-term swap; *natural*: the share of held-out "
             "comments with a race term whose decision some swap changes (*material*: by at least 0.1); *near 0.5*: "
             "the share of those comments scored within 0.1 of 0.5.\n",
             "| recipe | shift to \"black\" | all swaps | natural | natural, material | near 0.5 |",
             "|---|---|---|---|---|---|"]
    for recipe in RECIPES:
        mine = [r for r in report["rows"] if r["recipe"] == recipe]
        mean = {k: np.mean([r[k] for r in mine])
                for k in ("shift_to_term", "shift_all", "natural", "natural_material", "near_half")}
        lines.append(f"| {recipe} | {mean['shift_to_term']:.3f} | {mean['shift_all']:.3f} | "
                     f"{100 * mean['natural']:.1f} % | {100 * mean['natural_material']:.1f} % | "
                     f"{100 * mean['near_half']:.0f} % |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--out", default=str(twins.RESULTS / "twin_invariance"))
    args = parser.parse_args(argv)
    report = {"command": "python benchmarks/twin_invariance.py " + " ".join(argv or sys.argv[1:]),
              "machine": machine(), "rows": [r for s in args.seeds.split(",") for r in measure(int(s))]}
    twins.write_report(args.out, report, markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
