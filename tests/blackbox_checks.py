"""Checks shared by the black-box generator tests (AEQUITAS, SG)."""
from __future__ import annotations

import numpy as np

from fairnb.oracle import Oracle


def assert_pairs_rechecked(result, model, domain):
    """Every reported pair is re-checked by a fresh Oracle: inside the domain, differing only in
    protected attributes, and getting different decisions."""
    domain.validate(result.inputs)
    domain.validate(result.counterparts)
    oracle = Oracle(model, domain)
    assert oracle.check(result.inputs).discriminatory.all()
    other = domain.non_protected
    assert (result.inputs[:, other] == result.counterparts[:, other]).all()
    labels = oracle.predict_proba(result.inputs).argmax(axis=1)
    labels_c = oracle.predict_proba(result.counterparts).argmax(axis=1)
    assert (labels != labels_c).all()
    assert len(np.unique(result.inputs, axis=0)) == len(result.inputs)


class RowLog:
    """A model that records every row it is asked about (``calls``: one array per model call)."""

    def __init__(self, model):
        self.model, self.calls = model, []

    def predict_proba(self, X):
        self.calls.append(np.asarray(X, dtype=float).copy())
        return self.model.predict_proba(X)


def rows_searched(log: RowLog, result) -> np.ndarray:
    """The rows ``log`` saw after the inputs ``result`` checked as they are (the natural rate's and the random
    draws' measure, ``natural_n`` + ``random_n`` inputs with all their protected variants, in its first calls)."""
    m = len(result.domain.protected_values)
    skip = (result.extras.get("natural_n", 0) + result.extras.get("random_n", 0)) * m
    calls = list(log.calls)
    while skip > 0:
        skip -= len(calls.pop(0))
    assert skip == 0, "the measure as they are did not come first, in whole calls"
    return np.concatenate(calls)


def same_pairs(a, b) -> bool:
    """The same pairs (inputs, counterparts, phases, seeds, marks) in the same order, their probabilities within 1e-6
    (BLAS rounds them differently on another thread or CPU: never compared exactly); times may differ."""
    x, y = a.pairs.drop(columns="time"), b.pairs.drop(columns="time")
    floats = [c for c in x.columns if x[c].dtype.kind == "f"]
    return (list(x.columns) == list(y.columns) and x.drop(columns=floats).equals(y.drop(columns=floats))
            and np.allclose(x[floats].to_numpy(float), y[floats].to_numpy(float), rtol=0, atol=1e-6))
