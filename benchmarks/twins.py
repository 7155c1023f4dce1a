"""Twins: does what a search leads with tell a biased model from its unbiased twin? (issue "findings that mean
something", item 4).

For every input kind, a model trained with a planted bias and its twin trained on the same data without it,
each over several training seeds; every method of the kind runs on both under its default constraints, and
the table reports, per model: the **natural rate** (the share of the seeds discriminatory as they are, with
its 95 % Wilson interval), the **headline IDIs** (what a summary leads with after the natural rate:
``material_idis``, the pairs that keep the constraints and move the output by at least 0.1), the **valid
IDIs** (every pair that keeps the constraints), **all IDIs** (valid plus the distinct inputs the constraints
refused), the refusals per constraint, which values or terms the pairs swap to, and the time.

Kinds (``--kinds``):

* ``tabular``: the synthetic census (``make_synthetic``, label effect of ``sex`` 2.0 vs 0.0), fairnb's numpy
  network (``train_demo_model``); the seven tabular methods; seeds: the training split;
* ``template``: the template corpus (``make_template_corpus``, a bias against "muslim" of 0.8 vs 0.0), the
  paper's 3-layer LSTM on GloVe 50d, the six text methods (ADF's five and expga_text); seeds: the test texts;
* ``redditbias``: RedditBias race comments with a planted term: "black" makes a comment toxic in 80 % of the
  biased model's training labels, the twin keeps the annotations; the six text methods;
  ``redditbias_counterfactual``: the same biased model, its twin trained on the annotations counterfactually
  augmented (every race term swapped for every other, the label kept); ``redditbias_clp``: the same biased
  model, its twin trained on the annotations with counterfactual logit pairing (Garg et al. 2019: each batch's
  comments with a race term paired with a random swap into the domain's whole race list, strength
  ``CLP_STRENGTH``);
* ``faces`` and ``lfw``: synthetic faces and tinted LFW (``mislabelled_in_training=0.65`` of the dark training
  faces labelled non-face vs none; the synthetic twin also sees every training face in the other tone), a small
  CNN and an FGSM flipper; the three image methods; ``faces_exact``: the same synthetic twins with the exact
  flip (each face re-rendered with the other tone) instead of the FGSM flipper; ``faces_clp`` and
  ``faces_exact_clp``: the same biased detector and flips, the twin trained on the true labels with
  counterfactual logit pairing of each training face and its re-rendering in the other tone.

Usage::

    python benchmarks/twins.py --kinds tabular,template,faces,lfw --seeds 0,1,2   # -> benchmarks/results/twins.*
    python benchmarks/twins.py --kinds redditbias --update     # replaces only these kinds' rows in twins.json
    python benchmarks/twins.py --kinds template --methods expga_text --update    # only this method's rows
    python benchmarks/twins.py --kinds redditbias --seeds 1 --out /tmp/r1   # one seed per process, then:
    python benchmarks/twins.py --merge /tmp/r0.json /tmp/r1.json /tmp/r2.json
    python benchmarks/twins.py --kinds redditbias_clp --twins unbiased --methods hf --out /tmp/c   # the twin only:
    python benchmarks/twins.py --merge /tmp/c.json --biased-from redditbias   # its biased rows are redditbias's

Targets (read against the table): on every twin pair the natural-rate intervals of the biased and unbiased
models do not overlap, and each method's headline IDI count on the biased model is at least 3x its twin's.
"""
from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import fairnb  # noqa: E402
from fairnb.bench import machine  # noqa: E402
from fairnb.search import get_method  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
TABULAR = ("random", "aequitas", "sg", "adf", "eidig", "neuronfair", "maft")
TEXT = ("adf_asc", "asc", "adf_hf", "hf", "rp", "expga_text")
IMAGES = ("neuronfair_image", "adf_image", "eidig_image")
TWINS = ("biased", "unbiased")
LOCAL_CHECKED = ("template", "redditbias")     # biased models whose local phase is also run under "paper"
BUDGETS = {"random": dict(n_samples=20_000), "aequitas": dict(n_seeds=300, n_local=100),
           "sg": dict(limit=400, n_seeds=100), "adf": dict(n_seeds=300, n_local=100),
           "eidig": dict(n_seeds=300, n_local=100), "neuronfair": dict(n_seeds=300, n_local=100),
           "maft": dict(n_seeds=300, n_local=100), **{m: dict(n_seeds=300, n_local=100) for m in TEXT},
           # ExpGA's own defaults but 1,000 LIME samples per text (LIME's 5,000 cost 1.5 M LSTM rows per run)
           "expga_text": dict(n_candidates=300, lime_samples=1000),
           **{m: dict(n_seeds=200) for m in IMAGES}}
# counterfactual logit pairing's strength (lambda) per twin, chosen once from the twin's own invariance and
# accuracy (benchmarks/results/clp_strength_text.md, clp_strength_faces.md), never from the search counts
CLP_STRENGTH = {"redditbias": 1.0, "faces": 0.05}


# ---------------------------------------------------------------------------------------------- the twins
def tabular(seed: int):
    """(domain, seeds, biased model, unbiased model) on the synthetic census."""
    models = {}
    for name, strength in (("biased", 2.0), ("unbiased", 0.0)):
        data = fairnb.datasets.make_synthetic(n=5000, strength=strength, random_state=seed)
        models[name] = fairnb.train_demo_model(data, random_state=seed)
    return data.domain, data.seed_inputs(), models


def template(seed: int):
    from fairnb.domains import TextDomain
    from fairnb.text import Vocabulary, make_template_corpus
    from fairnb.text.glove import embedding_matrix, neighbour_table
    from fairnb.text.keras_model import fit_text_classifier

    models, dom, seeds = {}, None, None
    for name, bias in (("biased", 0.8), ("unbiased", 0.0)):
        data = make_template_corpus(n=3000, biased_against=["muslim"], bias=bias, random_state=seed)
        groups = data.info["groups"]
        if dom is None:      # the same sentences (the same vocabulary) for both twins
            vocab = Vocabulary.build(data.tokens(), extra=groups.all_terms)
            E, _ = embedding_matrix(vocab)
            dom = TextDomain(vocab, groups.subset(["religion"]), 12, neighbours=neighbour_table(vocab, 10))
        X_train, X_test, y_train, _ = data.split()
        models[name] = fit_text_classifier(dom.validate(X_train), y_train, E, epochs=5, random_state=seed)
        seeds = X_test
    return dom, seeds, models


def redditbias(seed: int, term: str = "black", twin: str = "annotations"):
    """The biased model learns the annotations with the planted term; its twin the annotations as they are
    (``twin="annotations"``), counterfactually augmented (``"counterfactual"``: every comment also with each
    race term swapped for every other, the label kept) or with counterfactual logit pairing (``"clp"``)."""
    dom, *_, X_test = redditbias_corpus()
    return dom, X_test, {"biased": redditbias_model("biased", seed, term), "unbiased": redditbias_model(twin, seed, term)}


def redditbias_model(recipe: str, seed: int, term: str = "black", strength: float | None = None):
    """The RedditBias classifier of ``recipe`` (``redditbias_training``'s, or ``"clp"``: the annotations, each
    batch's comments with a race term paired with the comment with that term swapped for a random other of the
    domain's whole race list, ``fairnb.text.term_swaps``; pairing strength ``strength``, default
    ``CLP_STRENGTH["redditbias"]``)."""
    from fairnb.text import term_swaps
    from fairnb.text.keras_model import fit_text_classifier

    dom, E, *_ = redditbias_corpus()
    if recipe != "clp":
        return fit_text_classifier(*redditbias_training(recipe, seed, term), E, epochs=3, random_state=seed)
    return fit_text_classifier(*redditbias_training("annotations", seed, term), E, epochs=3, random_state=seed,
                               logit_pairing=term_swaps(dom),
                               pairing_strength=CLP_STRENGTH["redditbias"] if strength is None else strength)


def redditbias_training(recipe: str, seed: int, term: str = "black"):
    """(ids, labels) a RedditBias model of ``recipe`` learns: ``"biased"``, the annotations with ``term``
    planted (a comment holding it is labelled a stereotype with probability 0.8, else keeps its label);
    ``"annotations"``; ``"counterfactual"``, the annotations counterfactually augmented
    (``fairnb.text.counterfactual_augmentation``)."""
    from fairnb.text import counterfactual_augmentation

    dom, _, ids, y_train, *_ = redditbias_corpus()
    if recipe == "biased":
        planted = np.isin(ids, [dom.vocab.id(term)]).any(axis=1) & (np.random.default_rng(seed).random(len(ids)) < 0.8)
        return ids, np.where(planted, 1, y_train)
    if recipe == "counterfactual":
        return counterfactual_augmentation(dom, ids, y_train)
    return ids, y_train


@functools.lru_cache(maxsize=1)
def redditbias_corpus():
    """RedditBias's race domain, embedding, training ids and labels, test labels and test texts (the same for
    every seed: built once, the neighbour table takes a minute)."""
    from fairnb.domains import TextDomain
    from fairnb.text import all_builtin_terms, load_redditbias
    from fairnb.text.glove import embedding_matrix, neighbour_table, vocabulary_with_neighbours

    data = load_redditbias()
    vocab = vocabulary_with_neighbours(data.tokens(), extra=all_builtin_terms(), min_count=2)
    E, _ = embedding_matrix(vocab)
    dom = TextDomain(vocab, "race", 32, neighbours=neighbour_table(vocab, 10))
    X_train, X_test, y_train, y_test = data.split()
    return dom, E, dom.validate(X_train), y_train, y_test, X_test


def faces(seed: int, lfw: bool = False, exact: bool = False, twin: str = "tone_blind"):
    """Tinted LFW shows every crop in both tones, so its twin trained on the true labels is tone-blind; the
    synthetic twin sees every training face also re-rendered with the other tone (``twin="tone_blind"``) or
    is trained with counterfactual logit pairing on each face and that re-rendering (``"clp"``). The FGSM
    flipper's f_sa sits on a detector trained on the plain data with true labels (LFW: the twin itself), so on
    synthetic faces it attacks neither twin; ``exact``: the exact re-rendering instead (synthetic faces only)."""
    from fairnb.domains import ImageDomain
    from fairnb.images import ExactFlip, FGSMFlip

    data, models, plain = face_twins(seed, lfw, twin)
    train, _ = data.split_indices()
    faces_train = train[data.y[train] == 1]
    if exact:
        dom = ImageDomain.from_data(data, ExactFlip(data))
    else:
        flipper = FGSMFlip(epochs=8, random_state=seed).fit(plain, data.X[faces_train], data.attribute[faces_train])
        dom = ImageDomain(data.X.shape[1:], flipper, attribute="skin_tone", attribute_names=("light", "dark"))
    return dom, data.X[faces_train], models


@functools.lru_cache(maxsize=3)
def face_twins(seed: int, lfw: bool, twin: str = "tone_blind"):
    """(plain data, {"biased", "unbiased"} detectors, the detector on the plain data) of one training seed;
    ``twin``: the synthetic faces' unbiased recipe, ``"tone_blind"`` or ``"clp"``."""
    from fairnb.images import load_tinted_lfw, make_faces
    from fairnb.images.detector import train_face_detector

    models = {}
    for name, bias in (("biased", {"mislabelled_in_training": 0.65}), ("unbiased", {})):
        data = (load_tinted_lfw(size=16, augment=4, random_state=seed, **bias) if lfw
                else make_faces(n=1200, size=16, random_state=seed, **bias))
        models[name] = train_face_detector(data, epochs=8, random_state=seed)
    plain = models["unbiased"]
    if not lfw:
        models["unbiased"] = {"tone_blind": tone_blind, "clp": tone_paired}[twin](data, seed)
    return data, models, plain


def tone_blind(data, seed: int):
    """A detector trained as ``train_face_detector`` on the true labels, with every training face also shown
    re-rendered with the other skin tone (the attribute balanced face by face)."""
    from fairnb.images.detector import build_face_detector, fit_classifier, seed_everything
    from fairnb.models.keras import KerasModel

    train, _ = data.split_indices()
    faces = train[data.y[train] == 1]
    X = np.concatenate([data.X[train], data.counterfactual(data.X[faces], faces)])
    y = np.concatenate([data.training_labels(train), np.ones(len(faces), np.int64)])
    seed_everything(seed)
    net = build_face_detector(data.X.shape[1:], (16, 32), (64,))
    fit_classifier(net, X, y, epochs=8, random_state=seed)
    return KerasModel(net)


def tone_paired(data, seed: int, strength: float | None = None):
    """A detector trained as ``train_face_detector`` on the true labels, with counterfactual logit pairing:
    each training face paired with its re-rendering in the other skin tone (``data.counterfactual``); strength
    ``strength`` (default ``CLP_STRENGTH["faces"]``)."""
    from fairnb.images.detector import build_face_detector, seed_everything
    from fairnb.models.keras import KerasModel
    from fairnb.models.logit_pairing import fit_with_logit_pairing

    train, _ = data.split_indices()
    is_face = data.y[train] == 1
    partner = data.X[train].copy()
    partner[is_face] = data.counterfactual(data.X[train[is_face]], train[is_face])

    def rerendered(X, index, rng):
        rows = np.flatnonzero(is_face[index])
        return rows, partner[index[rows]]

    seed_everything(seed)
    net = build_face_detector(data.X.shape[1:], (16, 32), (64,))
    fit_with_logit_pairing(net, data.X[train], data.training_labels(train), rerendered, epochs=8, random_state=seed,
                           strength=CLP_STRENGTH["faces"] if strength is None else strength)
    return KerasModel(net)


KINDS = {"tabular": (tabular, TABULAR), "template": (template, TEXT), "redditbias": (redditbias, TEXT),
         "redditbias_counterfactual": (lambda seed: redditbias(seed, twin="counterfactual"), TEXT),
         "faces": (faces, IMAGES), "faces_exact": (lambda seed: faces(seed, exact=True), IMAGES),
         "lfw": (lambda seed: faces(seed, lfw=True), IMAGES),
         "redditbias_clp": (lambda seed: redditbias(seed, twin="clp"), TEXT),
         "faces_clp": (lambda seed: faces(seed, twin="clp"), IMAGES),
         "faces_exact_clp": (lambda seed: faces(seed, exact=True, twin="clp"), IMAGES)}


# ---------------------------------------------------------------------------------------------- measuring
def row(kind, seed, twin, method, model, dom, seeds) -> dict:
    t0 = time.perf_counter()
    r = get_method(method)(random_state=0, progress=False, **BUDGETS[method]).run(model, dom, seeds=seeds)
    s = r.summary()
    refused = {k[len("rejected_"):]: v for k, v in r.extras.items() if k.startswith("rejected_") and k != "rejected_idis"}
    breaking = broken_pairs(r)
    return {"kind": kind, "seed": seed, "twin": twin, "method": method, "natural_rate": s.get("natural_rate"),
            "natural_low": s.get("natural_low"), "natural_high": s.get("natural_high"), "natural_n": s.get("natural_n"),
            "valid_idis": r.count(), "material_idis": s["material_pairs"],
            "all_idis": r.count() + int(r.extras.get("rejected_idis", 0)),
            "immaterial": s["immaterial_pairs"], "refused": refused, "constraints": r.extras.get("constraints"),
            "breaking_pairs": breaking, "words_changed_median": words_changed(r), "terms": swapped_to(r),
            "local_idis": r.extras.get("local_idis"), "seconds": round(time.perf_counter() - t0, 2),
            **(paper_local(method, model, dom, seeds) if kind in LOCAL_CHECKED and twin == "biased" else {})}


def paper_local(method, model, dom, seeds) -> dict:
    """The same search under ``constraints="paper"``: its local-phase IDIs, beside which the default's are read
    (the target: no text method's local phase below 50 % of its paper-option count without a reason)."""
    r = get_method(method)(random_state=0, progress=False, constraints="paper", **BUDGETS[method]).run(
        model, dom, seeds=seeds)
    return {"paper_local_idis": r.extras.get("local_idis"), "paper_valid_idis": r.count()}


def broken_pairs(result) -> int:
    """Reported pairs that break a default constraint, re-checked from the strings and pixels themselves (the
    seed each descends from, its counterpart), not from the search's bookkeeping: the target is 0."""
    from fairnb.constraints import resolve, seed_rows

    if not len(result):
        return 0
    X, C = result.inputs, result.counterparts
    seeds = seed_rows(result.extras.get("seeds"), result.seed_ids, X)
    ok = np.ones(len(X), bool)
    for constraint in resolve("default", result.domain):
        ok &= constraint.allowed(result.domain, X, seeds, C)
    return int((~ok).sum())


def swapped_to(result) -> dict:
    """Per protected value or term a pair's counterpart swaps *to* (``Result.directions()``): its ``pairs``,
    ``material`` pairs (the headline's) and ``to_class_1``, the share of them whose decision becomes class 1.
    An exact image flip has no attribute classifier to name the two sides; the seed's own value (from the data
    set the seeds are rows of) tells them."""
    from fairnb.domains.base import protected_columns
    from fairnb.results.tables import directions

    if not len(result):
        return {}
    table, dom = result.directions(), result.domain
    if dom.kind == "image" and not table["to"].astype(bool).any() and getattr(dom, "data", None) is not None:
        pairs, (column,) = result.pairs, protected_columns(dom)
        own = dom.data.attribute[dom.data_rows(result.extras["seeds"][result.seed_ids])]
        names = np.asarray(dom.attribute_names)
        pairs[column], pairs[f"{column}'"] = names[own], names[1 - own]
        table = directions(pairs, [column])
    return {r["to"]: {"pairs": r["pairs"], "material": r["material"], "to_class_1": r["to_class_1"]}
            for r in table.to_dict("records")}


def words_changed(result) -> float | None:
    """The median number of tokens a text pair's input differs from its seed in (None for other kinds)."""
    if result.domain.kind != "text" or not len(result):
        return None
    dom = result.domain
    return float(np.median((dom.ids(result.inputs) != dom.ids(result.extras["seeds"][result.seed_ids])).sum(axis=1)))


def run(kinds, seeds, only=None, twins=TWINS) -> list[dict]:
    rows = []
    for kind in kinds:
        build, methods = KINDS[kind]
        methods = [m for m in methods if only is None or m in only]
        for seed in seeds:
            t0 = time.perf_counter()
            dom, seed_inputs, models = build(seed)
            print(f"{kind} seed {seed}: twins trained in {time.perf_counter() - t0:.0f} s", flush=True)
            for method in methods:
                for twin in twins:
                    rows.append(row(kind, seed, twin, method, models[twin], dom, seed_inputs))
                    print("  ", {k: rows[-1][k] for k in ("twin", "method", "natural_rate", "valid_idis", "all_idis",
                                                           "seconds")}, flush=True)
    return rows


# ---------------------------------------------------------------------------------------------- reporting
def summarise(rows) -> list[dict]:
    """Per kind and method: the means over seeds of both twins, the ratio, and the two targets."""
    out = []
    for kind in dict.fromkeys(r["kind"] for r in rows):
        for method in dict.fromkeys(r["method"] for r in rows if r["kind"] == kind):
            mine = [r for r in rows if r["kind"] == kind and r["method"] == method]
            b = [r for r in mine if r["twin"] == "biased"]
            u = [r for r in mine if r["twin"] == "unbiased"]
            if not b or not u:      # a part written by one twin's run (``--twins``): its rows, no summary
                continue
            head_b, head_u = np.mean([material(r) for r in b]), np.mean([material(r) for r in u])
            valid_b, valid_u = np.mean([r["valid_idis"] for r in b]), np.mean([r["valid_idis"] for r in u])
            apart = all(rb["natural_low"] > ru["natural_high"] for rb, ru in zip(b, u)
                        if rb["natural_low"] is not None and ru["natural_high"] is not None)
            out.append({"kind": kind, "method": method, "seeds": len(b),
                        "natural_biased": _mean(r["natural_rate"] for r in b),
                        "natural_unbiased": _mean(r["natural_rate"] for r in u),
                        "intervals_apart_every_seed": bool(apart),
                        "headline_biased": round(float(head_b), 1), "headline_unbiased": round(float(head_u), 1),
                        "headline_ratio": _ratio(head_b, head_u),
                        "valid_biased": round(float(valid_b), 1), "valid_unbiased": round(float(valid_u), 1),
                        "valid_ratio": _ratio(valid_b, valid_u),
                        "all_biased": _mean(r["all_idis"] for r in b), "all_unbiased": _mean(r["all_idis"] for r in u),
                        "breaking_pairs": sum(r["breaking_pairs"] for r in mine),
                        "words_changed_median": _mean(r["words_changed_median"] for r in b),
                        "seconds": _mean(r["seconds"] for r in mine)})
    return out


def material(row) -> int:
    """A row's valid IDIs whose two probabilities differ by at least 0.1 (``Result.summary()["material_pairs"]``;
    rows written before that key existed give it as valid IDIs minus the immaterial pairs)."""
    return row.get("material_idis", row["valid_idis"] - row["immaterial"])


def _ratio(biased, unbiased) -> float:
    return round(float(biased / unbiased), 2) if unbiased else float("inf")


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return round(float(np.mean(values)), 4) if values else None


def markdown(report) -> str:
    lines = ["# Twins: biased models and their unbiased twins\n",
             "Training seeds per kind below (the searches use random_state 0), default constraints.\n"]
    for kind, info in report["runs"].items():
        lines.append(f"* {kind}: `{info['command']}`, seeds {info['seeds']}; machine {info['machine']}")
    lines += ["",
             "Natural rate: the share of the seeds discriminatory as they are (mean over training seeds); "
             "*apart*: the 95 % intervals of biased and unbiased do not overlap for any seed. Headline IDIs: the "
             "count a summary leads with after the natural rate (`summary()['material_pairs']`): the pairs that keep "
             "the default constraints and whose two probabilities differ by at least 0.1. Valid IDIs: every pair that "
             "keeps the constraints (`len(result)`), the immaterial ones (both sides at the decision threshold) "
             "included. All IDIs: valid plus the distinct inputs the constraints refused. The target (biased >= 3x "
             "its twin) is judged on the headline count.\n",
             "Breaking: reported pairs that break a default constraint when re-checked from the strings and pixels "
             "(target 0). Words: the median words changed from the seed, biased model (text; the cap is 4).\n",
             "| kind | method | natural biased | natural unbiased | apart | headline biased | headline unbiased "
             "| ratio | valid biased | valid unbiased | valid ratio | all biased | all unbiased | breaking | words "
             "| s per search |", "|" + "---|" * 16]
    for s in report["summary"]:
        lines.append(f"| {s['kind']} | {s['method']} | {_pct(s['natural_biased'])} | {_pct(s['natural_unbiased'])} | "
                     f"{'yes' if s['intervals_apart_every_seed'] else '**no**'} | {s['headline_biased']:,} | "
                     f"{s['headline_unbiased']:,} | {s['headline_ratio']} | {s['valid_biased']:,} | "
                     f"{s['valid_unbiased']:,} | {s['valid_ratio']} | {s['all_biased']:,} | {s['all_unbiased']:,} | "
                     f"{s['breaking_pairs']} | {'' if s['words_changed_median'] is None else s['words_changed_median']} | "
                     f"{s['seconds']} |")
    summary = report["summary"]
    apart = [s for s in summary if s["intervals_apart_every_seed"]]
    ratio = [s for s in summary if s["headline_ratio"] >= 3]
    natural = [_ratio(s["natural_biased"], s["natural_unbiased"]) for s in summary
               if s["natural_biased"] is not None and s["natural_unbiased"] is not None]
    misses = ", ".join(f"{s['kind']} {s['method']} ({s['headline_ratio']}x)" for s in summary
                       if s["headline_ratio"] < 3)
    lines += ["", "## Targets\n", f"* Natural-rate intervals apart on every seed: {len(apart)} of {len(summary)} rows.",
              f"* Headline (material) IDIs of the biased model >= 3x its twin's: {len(ratio)} of {len(summary)} rows"
              + (f"; not on {misses}." if misses else "."),
              f"* Valid IDIs (immaterial pairs included) >= 3x: {sum(s['valid_ratio'] >= 3 for s in summary)} of "
              f"{len(summary)} rows.",
              f"* The headline's first number, the natural rate, of the biased model >= 3x its twin's: "
              f"{sum(r >= 3 for r in natural)} of {len(summary)} rows"
              + (f" (lowest {min(natural)}x)." if natural else "."),
              f"* Reported pairs that break a constraint when re-checked: {sum(s['breaking_pairs'] for s in summary)}.",
              "* Headline IDIs >= 3x, per twin recipe: " + "; ".join(
                  f"{recipe} ({', '.join(dict.fromkeys(s['kind'] for s in mine))}): {sum(s['headline_ratio'] >= 3 for s in mine)}"
                  f" of {len(mine)}" for recipe, mine in by_recipe(summary).items()) + ".",
              ""]
    lines += clp_twins(summary)
    lines += image_ceiling(summary) + annotated_twin(summary) + swapped_values(report["rows"], summary)
    lines += local_phase(report["rows"])
    lines += ["", "## Refused by each constraint (sum over seeds, biased / unbiased)\n",
              "| kind | method | constraint | biased | unbiased |", "|---|---|---|---|---|"]
    for kind, method in dict.fromkeys((r["kind"], r["method"]) for r in report["rows"]):
        mine = [r for r in report["rows"] if r["kind"] == kind and r["method"] == method]
        names = sorted({n for r in mine for n in r["refused"]})
        for name in names:
            b = sum(r["refused"].get(name, 0) for r in mine if r["twin"] == "biased")
            u = sum(r["refused"].get(name, 0) for r in mine if r["twin"] == "unbiased")
            lines.append(f"| {kind} | {method} | {name} | {b:,} | {u:,} |")
    return "\n".join(lines) + "\n"


def swapped_values(rows, summary) -> list[str]:
    """For the rows that miss the ratio: which protected values or terms the pairs swap *to*, per twin (sums
    over the seeds whose rows hold them): the material pairs, their share of the twin's material pairs, and
    the share whose decision becomes class 1 (toxic, face)."""
    missed = {(s["kind"], s["method"]) for s in summary if s["headline_ratio"] < 3}
    held = [r for r in rows if (r["kind"], r["method"]) in missed and r.get("terms")]
    if not held:
        return []
    lines = ["", "### Which values the pairs swap to (rows that miss the ratio)\n",
             "Per twin, summed over the seeds listed: the material pairs whose counterpart swaps *to* each value "
             "(`Result.directions()`), their share of the twin's material pairs, and, of all the pairs swapped to "
             "it, the share whose decision becomes class 1 (toxic; face); the three values with most material pairs.\n",
             "| kind | method | seeds | twin | material pairs per seed | to: material pairs (share, to class 1) |",
             "|---|---|---|---|---|---|"]
    for kind, method in dict.fromkeys((r["kind"], r["method"]) for r in held):
        for twin in TWINS:
            mine = [r for r in held if (r["kind"], r["method"], r["twin"]) == (kind, method, twin)]
            if not mine:
                continue
            total, up = {}, {}
            for r in mine:
                for value, t in r["terms"].items():
                    total[value] = total.get(value, 0) + t["material"]
                    up[value] = up.get(value, 0.0) + t["to_class_1"] * t["pairs"]
            pairs = {v: sum(r["terms"].get(v, {}).get("pairs", 0) for r in mine) for v in total}
            n = sum(total.values()) or 1
            top = sorted(total, key=lambda v: -total[v])[:3]
            cells = "; ".join(f"{v}: {total[v]:,} ({100 * total[v] / n:.0f} %, {_pct(up[v] / pairs[v])})"
                              for v in top if pairs[v])
            mine.sort(key=lambda r: r["seed"])
            lines.append(f"| {kind} | {method} | {[r['seed'] for r in mine]} | {twin} | "
                         f"{', '.join(f'{material(r):,}' for r in mine)} | {cells} |")
    return lines


def local_phase(rows) -> list[str]:
    """The table of the biased text models' local-phase IDIs under the default constraints and under
    ``constraints="paper"`` (means over training seeds), and the share of the paper's count the default keeps."""
    checked = [r for r in rows if r.get("paper_local_idis") is not None and r["kind"] in LOCAL_CHECKED]
    if not checked:
        return []
    lines = ["", "## Local phase: default constraints vs the paper's search (biased text models)\n",
             "Local IDIs: the distinct discriminatory texts the local walks find (`extras['local_idis']`), means over "
             "training seeds; share: default / paper (target >= 50 %, or a reason in docs/text.md).\n",
             "| kind | method | local IDIs, default | local IDIs, paper | share | valid IDIs, default | valid IDIs, paper |",
             "|---|---|---|---|---|---|---|"]
    for kind, method in dict.fromkeys((r["kind"], r["method"]) for r in checked):
        mine = [r for r in checked if r["kind"] == kind and r["method"] == method]
        default, paper = np.mean([r["local_idis"] for r in mine]), np.mean([r["paper_local_idis"] for r in mine])
        share = f"{100 * default / paper:.0f} %" if paper else "n/a"
        lines.append(f"| {kind} | {method} | {default:,.1f} | {paper:,.1f} | {share} | "
                     f"{np.mean([r['valid_idis'] for r in mine]):,.1f} | "
                     f"{np.mean([r['paper_valid_idis'] for r in mine]):,.1f} |")
    return lines


# how each kind's unbiased twin is trained
RECIPES = {"tabular": "no planted effect", "template": "no planted bias", "redditbias": "annotations",
           "redditbias_counterfactual": "counterfactual augmentation", "faces": "tone-blind augmentation",
           "faces_exact": "tone-blind augmentation", "lfw": "true labels", "redditbias_clp": "logit pairing",
           "faces_clp": "logit pairing", "faces_exact_clp": "logit pairing"}
CLP_BEFORE = {"redditbias_clp": "redditbias", "faces_clp": "faces", "faces_exact_clp": "faces_exact"}


def by_recipe(summary) -> dict:
    """The summary's rows grouped by the recipe of their twin (``RECIPES``), in the table's order."""
    out = {}
    for s in summary:
        out.setdefault(RECIPES[s["kind"]], []).append(s)
    return out


def clp_twins(summary) -> list[str]:
    """The twins trained with counterfactual logit pairing beside the twin their kind had before (the same
    biased model): both twins' headline IDIs and ratios."""
    held = {(s["kind"], s["method"]): s for s in summary}
    pairs = [(s, held.get((CLP_BEFORE[s["kind"]], s["method"]))) for s in summary if s["kind"] in CLP_BEFORE]
    if not pairs:
        return []
    lines = ["## Twins trained to be counterfactually fair\n", CLP_NOTE, "",
             "| kind | method | headline biased | CLP twin | ratio | earlier twin | its headline | its ratio |",
             "|---|---|---|---|---|---|---|---|"]
    for s, before in pairs:
        earlier = ("", "", "") if before is None else (RECIPES[before["kind"]], f"{before['headline_unbiased']:,}",
                                                      before["headline_ratio"])
        lines.append(f"| {s['kind']} | {s['method']} | {s['headline_biased']:,} | {s['headline_unbiased']:,} | "
                     f"{s['headline_ratio']} | {' | '.join(str(e) for e in earlier)} |")
    return lines + ["", CLP_WHY, ""]


CLP_NOTE = (
    "Counterfactual logit pairing (CLP; Garg et al. 2019, \"Counterfactual Fairness in Text Classification through "
    "Robustness\", AIES) trains a model to give an input and its counterfactual the same logit: the usual "
    "cross-entropy plus lambda times the mean |g(x) - g(x')| over the batch's inputs that have a counterfactual, g "
    "the log-odds of class 1 (`fairnb.models.logit_pairing.fit_with_logit_pairing`). These twins learn the same "
    "labels as the earlier ones, with the same architecture, epochs and seeds, and are compared with the same "
    "biased models. RedditBias (`redditbias_clp`): the annotations, each batch's comments with a race term paired "
    "with the comment whose term is swapped for a random other of the domain's whole race list (ADF's: amerindian, "
    "bushmen, hottentots and australoid included, which no comment holds; `fairnb.text.term_swaps`). Synthetic faces "
    "(`faces_clp`, `faces_exact_clp`): the true labels, each training face paired with its exact re-rendering in "
    "the other tone, which enters only the pairing term (`tone_paired`).\n\n"
    "Lambda was chosen once per kind, before any search, from the twin's own held-out invariance and accuracy over "
    "0.05, 0.2, 1 and 5. RedditBias (`clp_strength_text.md`, training seeds 0 and 1): the mean |p - p'| of a "
    "race-term swap falls at every step (0.0097, 0.0036, 0.0009, 0.0001; the annotation twin's 0.033) and lambda 5 "
    "flattens the model (accuracy 64.2 %, 72 % of the comments within 0.1 of 0.5), so lambda is 1: accuracy 72.9 % "
    "against the annotation twin's 73.2 %. Faces (`clp_strength_faces.md`, seeds 0-2, held-out faces): the mean "
    "tone gap falls too (0.034, 0.024, 0.015, 0.002; the tone-blind twin's 0.038) but the accuracy with it (96.9, "
    "95.7, 91.7, 69.3 % against 98.1 %), so lambda is 0.05, the largest within 2 points. On three training seeds "
    "(`twin_invariance.md`) the RedditBias CLP twin moves by 0.0009 on average for any race-term swap (annotation "
    "twin 0.029, counterfactual twin 0.045), no swap changes a held-out decision by 0.1 (10.8 % and 11.3 % of the "
    "comments for those twins), accuracy 72.6 % (the annotation twin's: 72.6 %). Per method, the CLP twin beside the twin its kind had before:")
CLP_WHY = (
    "RedditBias: the CLP twin has no material pair on any training seed for any of the five methods (natural rate "
    "0.4 % against the planted model's 60.1 %, intervals apart on every seed); its valid pairs, 10-450 per search "
    "and all immaterial, swap into hottentots (39 %), australoid (20 %), asian (16 %) and amerindian (14 %), the "
    "terms that held the earlier twins under 3x, but now move the output by less than 0.1. The headline ratio is "
    "unbounded (inf) on every row, where the annotation twin gave 2.66-5.04x and the counterfactual twin "
    "2.48-5.08x: what held those under 3x was the twins' own reaction to swaps into terms the corpus lacks, and "
    "pairing every comment with swaps into the whole list removes it at no cost in held-out accuracy.\n\n"
    "Synthetic faces: the CLP twin does not reach 3x (exact flip 2.52x, 2.64x and 4.12x with NeuronFair; FGSM flip "
    "1.46-1.72x; per seed its headline pairs are 40-96 and 24-103 of 200 seeds). It is blinder to the tone on the "
    "faces as they are (`face_twin_pairs_clp.md`): the dark re-rendering of a seed face scores lower on 50-77 % of "
    "them (tone-blind twin: 92-99 %), its material pairs are smaller (median |p - p'| 0.19-0.37 against 0.47-0.55) "
    "and lean dark on 68-75 % (83-97 %); with the exact flip they split between the tones (swaps to light: 53 % of "
    "its material pairs; of all its pairs, 61 % of those swapped to light and 29 % of those swapped to dark become "
    "a face). But it is less confident (mean score of a held-out light face 0.91 against the tone-blind twin's "
    "0.99), so a move within the 8/255 budget still reaches its boundary from 24-40 % of the seeds (the tone-blind "
    "twin: 16-45 %): 80-98 % of its pairs sit at the budget's edge and 31-45 % "
    "survive re-rendering the face with other pixel noise (the biased detector's: 92-95 %); its natural rate is "
    "1.2 % (exact) and 7.5 % (FGSM) against 0.0 % and 3.8 %, still apart from the biased detector's on every seed. "
    "What caps the image ratio is then the twin's distance to its own decision boundary within the budget, not a "
    "tone bias; a stronger pairing brings the boundary nearer still (lambda 1: 91.7 % accuracy, mean score 0.69), "
    "so CLP is no route to 3x on these faces.")


def annotated_twin(summary) -> list[str]:
    """Why RedditBias misses the ratio (when it does), from ``twin_invariance.md``'s measurement."""
    missed = [s for s in summary if s["kind"] in ("redditbias", "redditbias_counterfactual") and s["headline_ratio"] < 3]
    if not missed:
        return []
    return ["", f"### Why RedditBias falls short ({', '.join(m['kind'] + ' ' + m['method'] for m in missed)})\n",
            REDDITBIAS_NOTE]


REDDITBIAS_NOTE = (
    "Measured without a search on the held-out comments (`benchmarks/results/twin_invariance.md`, three training "
    "seeds): swapping \"black\" into a comment moves the twin's probability by 0.012 on average, the planted "
    "model's by 0.134. So the explanation given before, that the twin learns from RedditBias's annotations that "
    "\"black\" carries label information (42 % vs 60 % stereotype), does not hold: the twin is nearly blind to the "
    "planted term. It is not blind to the race terms as a whole: some race-term swap changes its decision by at "
    "least 0.1 for 10.8 % of the comments (2.3-15.6 % per seed; the planted model: 59.1 %), swaps to rare terms "
    "moving it most (seed 0: \"australoid\" 0.039, \"black\" 0.013), and the searches, whose walks change up to "
    "4 words, find many more such comments. A twin trained on the annotations counterfactually augmented (every "
    "race term swapped for every other, the label kept: `redditbias_counterfactual`, the same biased rows) is no "
    "blinder: 0.025 to \"black\", a material natural rate of 11.3 %; trained on 2.4x the rows it decides more "
    "confidently (7 % of its comments within 0.1 of 0.5, the annotation twin's 27 %), so a swap that moves it moves "
    "it further. Its natural rate in the searches is lower (11.0 % vs 16.7 %) but its headline IDIs are about the same "
    "(ratios 2.48-5.08x against 2.66-5.04x): the twin's recipe is not what holds the ratio under 3x, and the "
    "annotation twin stays the table's control. The natural-rate intervals are apart on every seed for both.\n\n"
    "Which terms (the table above). The planted and annotation-twin RedditBias rows were re-run on today's code, "
    "whose default count moved (hf: 13,689 valid IDIs on seed 0's planted model against 14,251 before, the paper "
    "option's local count unchanged; same_identity_terms refused 702 candidates against 572: it has known man, "
    "woman, boy and girl since the old rows were run); the template rows, run before that change too, are due a "
    "re-run (hf on seed 0 finds 21,334 and 1,730 valid IDIs today against 22,990 and 2,575). Of hf's pairs: "
    "88-90 % of the planted model's material pairs take \"black\" out of the comment and the decision turns "
    "non-toxic, the planted rule. The twin's swap *into* terms RedditBias's comments never hold: ADF's race list, "
    "the domain's group, has amerindian, bushmen, hottentots and australoid, in none of the comments (black is in "
    "1,478 training comments, white in 364, asian in 24). On seed 0, 97 % of the twin's material pairs swap to one "
    "of them; on seed 1, 99 % (bushmen alone 87 %), the decision turning toxic; on seed 2, 96 % swap to "
    "\"asian\". The twin learnt nothing about those four terms from its labels: the embedding is GloVe's, frozen, "
    "and the decision on them is GloVe's association of archaic, pejorative words. Its pairs are real (a comment "
    "that holds such a term is scored toxic), but not the planted bias, and the per-term table "
    "(`Result.directions()`, which now counts each term's material pairs) is where a reader tells the two apart. "
    "adf_hf's and adf_asc's twins are the same (97 % and 95 %, 99 % and 99 %; 95 % to \"asian\"). Per seed, the "
    "headline ratio is 19.8x, 1.7x and 2.1x (hf; adf_hf: 13.2x, 1.8x, 2.0x; adf_asc: 13.5x, 2.1x, 2.1x): seed 0's "
    "twin moves little on the unseen terms. The counterfactual twin, which met those four terms only in its "
    "augmented copies, takes 78-93 % of its material pairs (hf) from swaps into them too, most of them turning the "
    "decision non-toxic. Dropping the terms the corpus lacks from the domain would be a choice made for the ratio, "
    "and a deployed model meets them too, so the benchmark keeps ADF's list.")


def image_ceiling(summary) -> list[str]:
    """Why an image kind misses the ratio, computed from its rows: an image search reports at most one pair per
    seed, so the biased count is capped at the seeds, and the ratio at seeds / the twin's count."""
    missed = [s for s in summary if s["method"] in IMAGES and s["headline_ratio"] < 3]
    if not missed:
        return []
    lines = ["### Why the image ratios fall short\n",
             "An image search stops a seed at its first pair, so a count cannot exceed the seeds searched (200) and "
             "the ratio cannot exceed 200 / the twin's count. Per row missed: the share of the twin's seeds that gave "
             "a material pair, and the highest ratio that share allows.\n",
             "| kind | method | twin's seeds with a pair | highest reachable ratio | biased seeds with a pair |",
             "|---|---|---|---|---|"]
    for s in missed:
        n = BUDGETS[s["method"]]["n_seeds"]
        lines.append(f"| {s['kind']} | {s['method']} | {_pct(s['headline_unbiased'] / n)} | "
                     f"{n / s['headline_unbiased']:.2f}x | {_pct(s['headline_biased'] / n)} |")
    return lines + ["", FACES_NOTE]


FACES_NOTE = (
    "Synthetic faces: the twin is trained to ignore the tone (true labels, every training face also re-rendered in "
    "the other tone), and the FGSM flipper's f_sa sits on a third detector (plain data, true labels) so that the "
    "flip attacks neither twin. The headline's first number separates them on every seed (natural rate 78.5 % vs "
    "0.0 % with the exact re-rendering, `faces_exact`; 31.3 % vs 3.8 % with the FGSM flip); its count does not "
    "reach 3x, and the twin's pairs are not boundary artefacts (`benchmarks/results/face_twin_pairs.md`, three "
    "training seeds): the two faces of a pair differ by a median |p - p'| of 0.47-0.55 (the biased detector's: "
    "0.29-0.66), not 0.1 as written here before; 83-97 % of them score the dark face lower, the planted bias's "
    "direction (the table above: the twin's pairs swapping *to* dark turn non-face); and 72-91 % keep their two "
    "decisions apart under noise within the budget added to both faces. They show a bias the twin has, small on "
    "the faces as they are: the dark re-rendering of a seed face scores lower on 92-99 % of them (mean 0.94-0.98 "
    "against 0.99-1.00), never across the threshold, and a move by the whole budget (83-100 % of the twin's "
    "pairs sit at its edge) takes the face to where that gap decides. The one check that removes most of them, "
    "re-rendering the face with another draw of the renderer's own pixel noise (the search's change kept: 20-48 % "
    "of the twin's exact-flip pairs keep, 92-95 % of the biased detector's), judges other images than the pair's "
    "and exists only for rendered faces, so it is not adopted as a constraint. With the exact flip the biased "
    "detector finds a pair on nearly every seed and a search reports one pair per seed, so no ratio above "
    "*highest reachable ratio* is possible. The budget was set from what a pair claims (8/255, the L∞ radius of "
    "\"the same image\"), not for the ratio: a tighter one raises it by cutting the twin's moves (L∞ 0.02, seed 0: "
    "3.9-9.0x, `benchmarks/results/image_budgets.md`); the global step is no lever with the exact flip (1.9-2.9x "
    "at 8/255, `image_budgets_steps.md`). LFW reaches the ratio because there the search finds a pair for at most 1 % of "
    "the twin's seeds.")


def _pct(x) -> str:
    return "n/a" if x is None else f"{100 * x:.1f} %"


def biased_rows_from(source: str, rows, path: Path) -> list[dict]:
    """For every (kind, method, seed) of ``rows`` with an unbiased row only, the biased row of kind ``source``
    in the report at ``path``, relabelled as that kind (a twin compared with the same biased model's rows)."""
    have = {(r["kind"], r["method"], r["seed"]) for r in rows if r["twin"] == "biased"}
    wanted = {(r["method"], r["seed"]): r["kind"] for r in rows
              if r["twin"] == "unbiased" and (r["kind"], r["method"], r["seed"]) not in have}
    stored = {(r["method"], r["seed"]): r for r in json.loads(path.read_text())["rows"]
              if r["kind"] == source and r["twin"] == "biased"}
    missing = sorted(set(wanted) - set(stored))
    if missing:
        raise SystemExit(f"{path} has no biased {source} rows for (method, seed) {missing}")
    return [{**stored[key], "kind": kind} for key, kind in wanted.items()]


def runs_per_kind(report) -> dict:
    """``report`` with the command, machine and seeds of each kind's run under ``runs`` (a report written by
    one run holds them once, for all its kinds)."""
    if "runs" not in report:
        info = {k: report.pop(k) for k in ("machine", "command", "seeds")}
        report["runs"] = {kind: info for kind in dict.fromkeys(r["kind"] for r in report["rows"])}
    return report


def render(path) -> str:
    """The markdown of a saved report (``twins.json``), with the summary recomputed from its rows."""
    report = runs_per_kind(json.loads(Path(path).read_text()))
    report["summary"] = summarise(report["rows"])
    Path(path).write_text(json.dumps(report, indent=1, default=float))
    return markdown(report)


def store(out: Path, rows, runs, *, update: bool) -> dict:
    """Write ``rows`` (and the ``runs`` that made them, per kind) to ``out``.json/.md; with ``update``, the
    rows of other kinds, methods and twins already in ``out``.json stay (read now: another kind's run may have
    written it); a kind whose rows come from two runs keeps both commands."""
    report = {"runs": {}, "rows": []}
    if update and out.with_suffix(".json").exists():
        report = runs_per_kind(json.loads(out.with_suffix(".json").read_text()))
        replaced = {(r["kind"], r["method"], r["twin"]) for r in rows}
        report["rows"] = [r for r in report["rows"] if (r["kind"], r["method"], r["twin"]) not in replaced]
        for kind, info in runs.items():
            kept = {r["twin"] for r in report["rows"] if r["kind"] == kind}
            if kept and kind in report["runs"]:
                runs[kind] = {**info, "command": f"{report['runs'][kind]['command']}; {info['command']}"}
    report["rows"] += rows
    report["runs"].update(runs)
    report["rows"].sort(key=lambda r: list(KINDS).index(r["kind"]))
    report["summary"] = summarise(report["rows"])
    out.with_suffix(".json").write_text(json.dumps(report, indent=1, default=float))
    out.with_suffix(".md").write_text(markdown(report))
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kinds", default="tabular,template,faces,lfw")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--out", default=str(RESULTS / "twins"))
    parser.add_argument("--methods", help="run only these methods of the kinds (comma-separated); with --update "
                        "only their rows are replaced")
    parser.add_argument("--twins", default=",".join(TWINS),
                        help="search only these twins' models (with --update the other twin's rows stay)")
    parser.add_argument("--render", action="store_true", help="only re-render OUT.md from OUT.json")
    parser.add_argument("--update", action="store_true",
                        help="replace only the rows of KINDS in OUT.json (the other kinds' rows stay)")
    parser.add_argument("--merge", nargs="+", metavar="PART.json",
                        help="put the rows of reports written with other --out (e.g. one seed per process) into "
                             "OUT.json, replacing their kinds' rows")
    parser.add_argument("--biased-from", metavar="KIND",
                        help="with --merge: the parts' twin-only rows (--twins unbiased) get the biased rows of "
                             "KIND in OUT.json (the same biased model, e.g. redditbias for redditbias_clp)")
    args = parser.parse_args(argv)
    if args.biased_from and not args.merge:
        parser.error("--biased-from goes with --merge")
    if args.render:
        Path(args.out).with_suffix(".md").write_text(render(Path(args.out).with_suffix(".json")))
        return 0
    if args.merge:
        parts = [runs_per_kind(json.loads(Path(p).read_text())) for p in args.merge]
        runs = {}
        for part in parts:
            for kind, info in part["runs"].items():
                if kind in runs:      # the same kind run in several processes (one seed each)
                    info = {"machine": runs[kind]["machine"], "command": f"{runs[kind]['command']}; {info['command']}",
                            "seeds": sorted(runs[kind]["seeds"] + info["seeds"])}
                runs[kind] = info
        rows = [r for part in parts for r in part["rows"]]
        if args.biased_from:
            borrowed = biased_rows_from(args.biased_from, rows, Path(args.out).with_suffix(".json"))
            for kind in dict.fromkeys(r["kind"] for r in borrowed):
                methods = ", ".join(dict.fromkeys(r["method"] for r in borrowed if r["kind"] == kind))
                runs[f"{kind} ({methods}, biased)"] = {
                    "machine": f"that of the {args.biased_from} rows",
                    "seeds": sorted({r["seed"] for r in borrowed if r["kind"] == kind}),
                    "command": f"its biased rows are those of {args.biased_from} ({methods}), the same planted model"}
            rows += borrowed
        store(Path(args.out), rows, runs, update=True)
        return 0
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        parser.error(f"unknown kinds {unknown}; choose from {sorted(KINDS)}")
    seeds = [int(s) for s in args.seeds.split(",")]
    only = None if args.methods is None else [m.strip() for m in args.methods.split(",") if m.strip()]
    twins = [t.strip() for t in args.twins.split(",") if t.strip()]
    if not twins or set(twins) - set(TWINS):
        parser.error(f"--twins must name some of {list(TWINS)}, got {args.twins!r}")
    run_info = {"machine": machine(), "command": "python benchmarks/twins.py " + " ".join(argv or sys.argv[1:]),
                "seeds": seeds}
    names = kinds if only is None else [f"{kind} ({', '.join(only)})" for kind in kinds]
    report = store(Path(args.out), run(kinds, seeds, only, twins), {name: run_info for name in names},
                   update=args.update)
    print(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
