"""What the tone-blind twin's image pairs are (issue "findings that mean something", the 3x target on synthetic
faces): boundary artefacts, or findings of a bias the twin has?

The synthetic-face twins of ``benchmarks/twins.py`` (the biased detector learnt from labels that call 65 % of
the dark training faces non-faces; the twin from the true labels with every training face also re-rendered in
the other tone; ``faces_clp``, ``faces_exact_clp``: the twin trained with counterfactual logit pairing of
each training face and its re-rendering). Per training seed and twin, first without a search, on the 200 seed
faces and their exact re-renderings in the other tone: the median |p - p'| the tone makes, how often the dark
face scores lower, the mean scores of the two tones. Then every image method under the default constraints, and of its material
pairs (the headline's):

* *gap*: the median |p - p'|;
* *dark lower*: the share whose dark side is the one scored lower (the planted bias's direction);
* *at the edge*: the share whose face the search moved by the whole pixel budget;
* *keeps under noise*: the share whose two sides still get different decisions in at least half of 8 draws of
  uniform noise within the budget (the same noise added to both sides): a boundary artefact would not;
* *keeps re-rendered* (exact flip only): the same, with the face re-rendered by the renderer with another
  noise draw (its own pixel noise, sd 0.03), both tones, the search's change kept.

Usage::

    python benchmarks/face_twin_pairs.py --seeds 0,1,2 --kinds faces_exact,faces
    python benchmarks/face_twin_pairs.py --seeds 0,1,2 --kinds faces_exact_clp,faces_clp \\
        --out benchmarks/results/face_twin_pairs_clp          # the twins trained with counterfactual logit pairing
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
from fairnb.bench import machine, save_report  # noqa: E402
from fairnb.constraints.images import DEFAULT_LINF  # noqa: E402
from fairnb.results.tables import material  # noqa: E402
from fairnb.search import get_method  # noqa: E402

DRAWS = 8
DARK = 1          # make_faces: skin_tone 0 light, 1 dark (the value the biased detector's labels are against)


def face_proba(model, X) -> np.ndarray:
    return np.asarray(model.predict_proba(np.asarray(X, dtype=np.float32)))[:, 1]


def seed_gap(data, rows, seeds, model) -> dict:
    """How the tone moves ``model`` on the seed faces as they are (exact re-rendering, no search)."""
    p, q = face_proba(model, seeds), face_proba(model, data.counterfactual(seeds, rows))
    dark = data.attribute[rows] == DARK
    p_dark, p_light = np.where(dark, p, q), np.where(dark, q, p)
    return {"seed_gap_median": float(np.median(np.abs(p - q))), "seed_dark_lower": float(np.mean(p_dark < p_light)),
            "seed_p_light": float(p_light.mean()), "seed_p_dark": float(p_dark.mean())}


def keeps(model, draws) -> np.ndarray:
    """Per pair, the share of ``draws`` (a list of the pairs' two sides, changed) under which its two sides still
    get different decisions."""
    return np.mean([(face_proba(model, A) >= 0.5) != (face_proba(model, B) >= 0.5) for A, B in draws], axis=0)


def noise_draws(X, C, rng):
    for _ in range(DRAWS):
        n = rng.uniform(-DEFAULT_LINF, DEFAULT_LINF, X.shape)
        yield np.clip(X + n, 0, 1), np.clip(C + n, 0, 1)


def rerendered_draws(data, rows, delta, rng):
    """The faces ``rows`` re-rendered with other noise seeds, in their own and the other tone, plus ``delta``."""
    params = data.params.iloc[rows].copy()
    for _ in range(DRAWS):
        params["noise_seed"] = rng.integers(1 << 30, size=len(params))
        other = params.copy()
        other[data.protected] = 1 - other[data.protected]
        yield np.clip(data.render(params) + delta, 0, 1), np.clip(data.render(other) + delta, 0, 1)


def measure(kind, seed, method, twin, model, dom, data, seed_faces) -> dict:
    r = get_method(method)(random_state=0, progress=False, **twins.BUDGETS[method]).run(model, dom, seeds=seed_faces)
    row = {"kind": kind, "seed": seed, "method": method, "twin": twin, "material": r.summary()["material_pairs"]}
    keep = material(r.proba, r.counterpart_proba)
    if not keep.any():
        return row
    X, C = r.inputs[keep], r.counterparts[keep]
    P, PC = r.proba[keep, 1], r.counterpart_proba[keep, 1]
    seeds = r.extras["seeds"][r.seed_ids[keep]]
    rows = data_rows(data, seeds)
    dark = data.attribute[rows] == DARK
    rng = np.random.default_rng(seed)
    row.update(gap_median=float(np.median(np.abs(P - PC))),
               dark_lower=float(np.mean(np.where(dark, P, PC) < np.where(dark, PC, P))),
               at_edge=float(np.mean(np.abs(X - seeds).reshape(len(X), -1).max(axis=1) >= DEFAULT_LINF - 1e-6)),
               keeps_noise=float(np.mean(keeps(model, list(noise_draws(X, C, rng))) >= 0.5)))
    if kind.startswith("faces_exact"):
        rendered = list(rerendered_draws(data, rows, X - seeds, rng))
        row["keeps_rerendered"] = float(np.mean(keeps(model, rendered) >= 0.5))
    return row


def data_rows(data, seeds) -> np.ndarray:
    """The rows of ``data`` that the seed faces are."""
    from fairnb.domains import ImageDomain

    return ImageDomain.from_data(data).data_rows(seeds)


RECIPE = {"faces": "tone_blind", "faces_exact": "tone_blind", "faces_clp": "clp", "faces_exact_clp": "clp"}


def run(seeds, kinds) -> list[dict]:
    out = []
    for seed in seeds:
        data, _, _ = twins.face_twins(seed, False)
        for kind in kinds:
            recipe = RECIPE[kind]
            dom, seed_faces, models = twins.faces(seed, exact=kind.startswith("faces_exact"), twin=recipe)
            if kind == next(k for k in kinds if RECIPE[k] == recipe):      # the recipe's first kind
                first = seed_faces[:twins.BUDGETS[twins.IMAGES[0]]["n_seeds"]]
                rows = data_rows(data, first)
                for twin in twins.TWINS:
                    out.append({"kind": "seeds", "seed": seed, "twin": twin, "recipe": recipe,
                                **seed_gap(data, rows, first, models[twin])})
                    print(out[-1], flush=True)
            for method in twins.IMAGES:
                for twin in twins.TWINS:
                    out.append(measure(kind, seed, method, twin, models[twin], dom, data, seed_faces))
                    print(out[-1], flush=True)
    return out


def markdown(report) -> str:
    rows = report["rows"]
    lines = ["# The synthetic-face twins' image pairs: artefacts or findings?\n",
             f"`{report['command']}`; machine {report['machine']}.\n",
             "Without a search, the 200 seed faces and their exact re-renderings in the other tone (per training "
             "seed): the median |p - p'| the tone makes, the share of faces whose dark version scores lower, the "
             "mean scores.\n",
             "| seed | twin | median gap | dark lower | p light | p dark |", "|---|---|---|---|---|---|"]
    for r in (r for r in rows if r["kind"] == "seeds"):
        twin = r["twin"] if r["twin"] == "biased" else f"{r['twin']} ({r.get('recipe', 'tone_blind')})"
        lines.append(f"| {r['seed']} | {twin} | {r['seed_gap_median']:.3f} | {_pct(r['seed_dark_lower'])} | "
                     f"{r['seed_p_light']:.3f} | {r['seed_p_dark']:.3f} |")
    lines += ["", "The searches' material pairs (the headline's), means over training seeds: median |p - p'|; the "
              "share whose dark side is scored lower; the share moved by the whole budget; the share whose two "
              "sides still get different decisions in at least half of 8 noise draws within the budget (the same "
              "noise on both sides), and (exact flip) of 8 re-renderings of the face by the renderer with another "
              "noise draw, the search's change kept.\n",
              "| kind | method | twin | material pairs | gap | dark lower | at the edge | keeps under noise "
              "| keeps re-rendered |", "|---|---|---|---|---|---|---|---|---|"]
    searched = [r for r in rows if r["kind"] != "seeds"]
    for kind, method, twin in dict.fromkeys((r["kind"], r["method"], r["twin"]) for r in searched):
        mine = [r for r in searched if (r["kind"], r["method"], r["twin"]) == (kind, method, twin)]

        def mean(key, mine=mine):
            values = [r[key] for r in mine if key in r]
            return np.mean(values) if values else None
        lines.append(f"| {kind} | {method} | {twin} | {mean('material'):.1f} | {_num(mean('gap_median'))} | "
                     f"{_pct(mean('dark_lower'))} | {_pct(mean('at_edge'))} | {_pct(mean('keeps_noise'))} | "
                     f"{_pct(mean('keeps_rerendered'))} |")
    return "\n".join(lines) + "\n"


def _pct(x) -> str:
    return "" if x is None else f"{100 * x:.0f} %"


def _num(x) -> str:
    return "" if x is None else f"{x:.3f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--kinds", default="faces_exact,faces")
    parser.add_argument("--out", default=str(twins.RESULTS / "face_twin_pairs"))
    args = parser.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    if not kinds or set(kinds) - set(RECIPE):
        parser.error(f"--kinds: some of {list(RECIPE)}, got {args.kinds!r}")
    report = {"command": "python benchmarks/face_twin_pairs.py " + " ".join(argv or sys.argv[1:]),
              "machine": machine(), "rows": run([int(s) for s in args.seeds.split(",")], kinds)}
    save_report(args.out, report, markdown(report), default=int)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
