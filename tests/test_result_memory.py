"""A Result keeps its pairs once: reading them (``inputs``, ``pairs``, ``details``) joins the chunks the search
recorded them in, and the chunks are let go (tutorial 05's image Results held every image twice)."""
from __future__ import annotations

import gc
import tracemalloc

import numpy as np

import fairnb
from fairnb.domains import Feature, TabularDomain


def _record(r, X, C, elapsed):
    r.record(X, C, [[0.9, 0.1]] * len(X), [[0.1, 0.9]] * len(X), phase="random", seed_ids=-1, elapsed=elapsed)


def test_reading_the_pairs_does_not_keep_a_second_copy_of_them():
    dom = TabularDomain([Feature("sex", 0, 1)] + [Feature(f"x{i}", 0, 10**6) for i in range(99)], protected="sex")
    r = fairnb.Result(dom, "random")
    rng = np.random.default_rng(0)
    gc.collect()
    tracemalloc.start()
    try:
        for step in range(20):                     # 20 chunks of 500 pairs: 8 MB of inputs, 8 of counterparts
            X = np.column_stack([np.zeros(500), rng.integers(0, 10**6, (500, 99))]).astype(float)
            C = X.copy()
            C[:, 0] = 1
            _record(r, X, C, float(step))
        del X, C
        gc.collect()
        recorded = tracemalloc.get_traced_memory()[0]
        assert len(r.inputs) == 10_000 and (r.counterparts[:, 0] == 1).all()
        _record(r, np.full((1, 100), 7.0), np.full((1, 100), 7.0), 21.0)     # one more chunk: joined again
        np.testing.assert_array_equal(r.inputs[-1], 7)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - recorded
    finally:
        tracemalloc.stop()
    assert grown < 0.1 * 2 * r.inputs.nbytes, f"reading the pairs kept {grown / 2**20:.1f} MiB more than recorded"
