"""Checks shared by the tests of fairnb's exact tree evaluators (``CompiledTrees``, ``BoostingTables``)."""
from __future__ import annotations

import numpy as np


def on_thresholds(estimator, X, seed):
    """``X`` with, in each row, one split's feature set to that split's threshold or the float32 next to it either
    side (the rows where a comparison's rounding could turn)."""
    trees = [estimator] if hasattr(estimator, "tree_") else list(np.ravel(estimator.estimators_))
    splits = [(f, t) for tree in trees for f, t in zip(tree.tree_.feature, tree.tree_.threshold) if f >= 0]
    X, rng = np.array(X, dtype=float), np.random.default_rng(seed)
    for i, j in enumerate(rng.integers(0, len(splits), len(X))):
        f, t = splits[j]
        X[i, f] = [t, np.nextafter(np.float32(t), np.float32(-np.inf)),
                   np.nextafter(np.float32(t), np.float32(np.inf))][i % 3]
    return X


def assert_same(evaluator, estimator, X):
    """``evaluator(estimator).predict_proba(X)`` within 1e-6 of ``estimator.predict_proba(X)``, the same decisions."""
    P, Q = evaluator(estimator).predict_proba(X), estimator.predict_proba(X)
    assert P.shape == Q.shape
    assert np.abs(P - Q).max() <= 1e-6
    assert np.array_equal(P.argmax(axis=1), Q.argmax(axis=1))
