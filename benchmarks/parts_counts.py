"""Counts of every text, image and small tabular search on fixed seeds, to compare two commits of a refactor.

Text: the tests' template corpus (300 texts about religion, a planted bias against "muslim", random 6-d
embeddings, 5 neighbours) and their bag-of-embeddings model, every method with each local acceptance. Images: the
tests' 4x4 RGB faces with a planted red bias. Tabular: the synthetic data with a planted bias, every two-phase
method and option. Each line: method, options, unique IDIs (eidig / adf convention), tried, the method's counts
and a digest of the pairs found (equal digests: the same pairs in the same order). Usage::

    PYTHONPATH=. .venv/bin/python benchmarks/parts_counts.py > counts.txt
"""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np

import fairnb  # noqa: E402  (the tree on PYTHONPATH: its tests' fixtures are used too)
from fairnb.search.registry import get_method  # noqa: E402

sys.path.insert(0, str(Path(fairnb.__file__).resolve().parents[1] / "tests"))

KEYS = ("raw_idis", "global_idis", "local_seeds", "local_idis", "local_generated", "generated", "gradient_rows",
        "model_rows", "skipped_seeds", "flip_failed", "strict_idis")


def line(name, options, result):
    digest = hashlib.sha1(np.ascontiguousarray(result.inputs, dtype=float).tobytes()).hexdigest()[:12]
    counts = " ".join(f"{k}={result.extras[k]}" for k in KEYS if k in result.extras)
    print(f"{name:18s} {options!s:42s} idis={result.count()} adf={result.count('adf')} tried={result.tried} "
          f"{counts} pairs={digest}", flush=True)


def text():
    from text_checks import bench, biased_linear

    dom, texts, E = bench(n=300)
    model = biased_linear(dom, E)
    for method in ("rp", "asc", "adf_asc", "hf", "adf_hf"):
        for options in ({}, {"acceptance": "all"}, {"acceptance": "metropolis"}, {"n_walkers": 4},
                        {"n_local": 0}):
            kw = {"n_seeds": 60, "n_local": 30, **options}
            line(method, options, get_method(method)(random_state=0, **kw).run(model, dom, seeds=texts))


def images():
    from image_checks import detector, domain, seed_images

    dom, seeds, model = domain(), seed_images(40), detector(1.0)
    for method in ("adf_image", "eidig_image", "neuronfair_image"):
        for options in ({}, {"signed": True, "global_step": 0.02}):
            line(method, options, get_method(method)(random_state=0, **options).run(model, dom, seeds=seeds))


def tabular():
    data = fairnb.datasets.make_synthetic(n=800, random_state=0)
    w = np.zeros((7, 1)); w[1], w[3] = 3.0, 0.5
    W1 = np.zeros((7, 2)); W1[1, 0], W1[3, 1] = 3.0, 0.5
    linear = fairnb.models.NumpyMLP([w], [np.array([-6.0])])
    hidden = fairnb.models.NumpyMLP([W1, np.ones((2, 1))], [np.zeros(2), np.array([-6.0])])
    runs = [("adf", {}), ("adf", {"acceptance": "metropolis"}), ("adf", {"acceptance": "reset"}),
            ("eidig", {}), ("eidig", {"update_interval": float("inf")}), ("maft", {}),
            ("neuronfair", {}), ("neuronfair", {"local": "paper"})]
    for method, options in runs:
        model = hidden if method == "neuronfair" else linear
        kw = {"n_seeds": 40, "n_local": 40, "seed_selection": "as_given", **options}
        line(method, options, get_method(method)(random_state=0, **kw).run(model, data.domain, seeds=data.X))


if __name__ == "__main__":
    for part in sys.argv[1:] or ("text", "images", "tabular"):
        globals()[part]()
