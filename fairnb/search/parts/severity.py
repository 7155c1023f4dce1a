"""DICE's severity of discrimination: how many bits of the protected attributes a decision reveals.

DICE (Monjezi, Trivedi, Tan, Tizpaz-Niari, ICSE 2023) measures an input's discrimination as the
quantitative information flow from the protected attributes to the model's output while every other
attribute is held fixed. For an input ``x`` the protected attributes take each of their ``m`` values
(the domain's protected variants); the outputs are discretised into partitions and

* ``k(x)``, the number of distinct partitions the ``m`` variants fall into, gives the **min-entropy
  leakage** ``log2 k(x)`` bits (for a deterministic model with the protected values equally likely, the
  min-entropy leakage is the logarithm of the number of distinguishable outputs);
* the **Shannon leakage** is the entropy of the partition sizes over the ``m`` variants.

0 bits: the decision cannot tell the protected values apart; 1 bit: it splits them into two groups.

Partitions: ``epsilon`` cuts the probability of class 1 (binary models; each class's probability for
more classes) into bins ``[0, e), [e, 2e), ...`` (DICE's default ``e = 0.025``: 40 bins, at most
``log2 min(m, 40)`` bits); ``epsilon=None`` uses the predicted labels (at most 1 bit for two classes).
``docs/methods/dice.md`` is the digest.

Example
-------
>>> import numpy as np
>>> from fairnb.domains import Feature, TabularDomain
>>> from fairnb.models import NumpyMLP
>>> dom = TabularDomain([Feature("sex", 0, 1), Feature("x", 0, 9)], protected=["sex"])
>>> model = NumpyMLP([np.array([[4.0], [1.0]])], [np.array([-6.0])])   # sex moves the output
>>> s = severity(model, dom, np.array([[0.0, 3.0], [0.0, 9.0]]), epsilon=None)
>>> s.k.tolist(), s.min_entropy.tolist()      # x = 3: 0.05 vs 0.73 (two labels); x = 9: 0.95 vs 1.0
([2, 1], [1.0, 0.0])
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

EPSILON = 0.025


def output_partitions(P: np.ndarray, epsilon: float | None = EPSILON) -> np.ndarray:
    """The partition of each output row of ``P`` (``(..., k)`` probabilities): an integer code.

    ``epsilon=None``: the predicted label. Else the bin ``floor(p / epsilon)`` of class 1's probability
    (two classes) or the bins of every class's probability (more classes); 1.0 falls in the top bin.

    >>> output_partitions(np.array([[0.99, 0.01], [0.985, 0.015], [0.0, 1.0]])).tolist()
    [0, 0, 39]
    """
    P = np.asarray(P, dtype=float)
    if epsilon is None:
        return P.argmax(axis=-1)
    bins = probability_bins(P, epsilon)
    if P.shape[-1] == 2:
        return bins[..., 1]
    return (bins * n_bins(epsilon) ** np.arange(P.shape[-1])).sum(axis=-1)


def n_bins(epsilon: float) -> int:
    """How many bins of width ``epsilon`` cover [0, 1] (the last one holds 1.0)."""
    return int(np.ceil(1.0 / epsilon - 1e-9))


def probability_bins(P: np.ndarray, epsilon: float) -> np.ndarray:
    """The bin ``floor(p / epsilon)`` of every probability (1.0 in the top bin)."""
    return np.minimum(np.floor(np.asarray(P, dtype=float) / epsilon), n_bins(epsilon) - 1).astype(np.int64)


def partition_sizes(codes: np.ndarray) -> np.ndarray:
    """``(n, m)``: per row of ``codes`` (``(n, m)``), the sizes of its distinct partitions in the order of their
    codes, then zeros (all rows at once: a Python loop over 10,000 rows took most of a second).

    >>> partition_sizes(np.array([[3, 1, 3], [2, 2, 2]])).tolist()
    [[1, 2, 0], [3, 0, 0]]
    """
    S = np.sort(np.asarray(codes), axis=1)
    n, m = S.shape
    run = np.cumsum(np.concatenate([np.ones((n, 1), bool), S[:, 1:] != S[:, :-1]], axis=1), axis=1) - 1
    return np.bincount((np.arange(n)[:, None] * m + run).ravel(), minlength=n * m).reshape(n, m)


@dataclass
class Severity:
    """Per input: ``k`` (distinct output partitions over the protected values), ``min_entropy`` and
    ``shannon`` (bits of protected information in the decision)."""

    k: np.ndarray
    min_entropy: np.ndarray
    shannon: np.ndarray
    epsilon: float | None

    def __len__(self):
        return len(self.k)

    def summary(self) -> dict:
        """The mean and the largest bits (min-entropy) over the inputs."""
        if not len(self):
            return {"severity_bits_mean": 0.0, "severity_bits_max": 0.0}
        return {"severity_bits_mean": round(float(self.min_entropy.mean()), 4),
                "severity_bits_max": round(float(self.min_entropy.max()), 4)}

    def table(self) -> pd.DataFrame:
        """One row per input: ``k``, ``min_entropy_bits``, ``shannon_bits``."""
        return pd.DataFrame({"k": self.k, "min_entropy_bits": self.min_entropy, "shannon_bits": self.shannon})


def severity_from_outputs(VP: np.ndarray, epsilon: float | None = EPSILON) -> Severity:
    """The severity of inputs from their variants' outputs ``VP`` (``(n, m, k)``, all protected values)."""
    VP = np.asarray(VP, dtype=float)
    if VP.ndim != 3:
        raise ValueError(f"need the variants' outputs as an (inputs, variants, classes) array; got shape {VP.shape}")
    if epsilon is not None and not 0 < epsilon <= 1:
        raise ValueError(f"epsilon is the width of an output partition, in (0, 1]; got {epsilon!r}")
    sizes = partition_sizes(output_partitions(VP, epsilon))
    k = (sizes > 0).sum(axis=1)
    share = sizes / np.maximum(sizes.sum(axis=1, keepdims=True), 1)
    shannon = -(share * np.log2(np.where(sizes > 0, share, 1.0))).sum(axis=1)
    return Severity(k, np.log2(np.maximum(k, 1)), np.abs(shannon), epsilon)


def variant_outputs(model, domain, X) -> np.ndarray:
    """``(n, m, k)``: the model's outputs on every protected variant of every row of ``X``."""
    from ...models import wrap

    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or not len(X):
        raise ValueError(f"need a non-empty (rows, features) array of inputs; got shape {X.shape}")
    V = domain.variants(X)
    n, m = V.shape[:2]
    P = np.asarray(wrap(model).predict_proba(V.reshape(n * m, -1)), dtype=float)
    return P.reshape(n, m, -1)


def severity(model, domain, X, epsilon: float | None = EPSILON) -> Severity:
    """DICE's severity of each input of ``X`` on ``model`` over the protected values of ``domain``."""
    return severity_from_outputs(variant_outputs(model, domain, X), epsilon)


def result_severity(model, result, epsilon: float | None = EPSILON) -> Severity:
    """The severity of a Result's discriminatory inputs (``result.inputs``) on the model that was searched."""
    if result.domain is None:
        raise ValueError("the Result has no domain: load it with its domain (Result.with_domain)")
    if not len(result):
        return severity_from_outputs(np.zeros((0, 1, 2)), epsilon)
    return severity(model, result.domain, result.inputs, epsilon)
